//! The site library.
