//! Per kind: run the kernel scheduler named by the options on a validated scenario and build
//! the result document, logging every decision record to the sink.
pub mod baseline;
pub mod oasis;
pub mod online;
pub mod placement;
pub mod preempt;
pub mod route;
