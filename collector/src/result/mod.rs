//! The result file a command writes: the result it starts from (`new`), its
//! atomic writes (`output`), where and how it was made (`provenance`) and
//! the job summary shown beside it (`summary`).

pub mod new;
pub mod output;
pub mod provenance;
pub mod summary;
