//! litnav's evaluation metrics, as pure functions with no I/O. Each module follows one family of
//! metrics from the seed papers; doc comments state every choice a paper leaves open.

pub mod agreement;
pub mod assignment;
pub mod bloom;
pub mod checks;
pub mod clustering;
pub mod difflib;
pub mod entities;
pub mod hierarchy;
pub mod ordered;
pub mod retrieval;
pub mod taxobench;
pub mod tree;
