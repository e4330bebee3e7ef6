//! The validated, index-based model of every scenario kind of `docs/formats.md`.
//!
//! Ids and resource names stay with the caller (the document layer); the kernel sees
//! dense indices in input order. Built once (needs `alloc`); schedulers then keep their own
//! fixed scratch so that decisions allocate nothing.
pub mod oasis;
pub mod online;
pub mod placement;
pub mod preempt;
pub mod route;
pub mod throughput;
