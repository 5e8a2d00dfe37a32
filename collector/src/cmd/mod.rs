//! The commands: one module each, with its own arguments (`cli` names them
//! all), and the arguments several share (`args`).

pub mod args;
pub mod assemble;
pub mod cache;
pub mod profile;
pub mod run;
pub mod workload;
