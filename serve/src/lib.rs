//! `mlsched serve`: a durable, crash-safe scheduling service (`docs/serve.md`).
//!
//! Clusters are engines ([`mlsched_scenario::engine::Engine`]) fed events over HTTP/JSON. Each
//! cluster has one writer thread ([`writer`]) that applies its events in one order, appends them
//! to a write-ahead log ([`wal`]) and fsyncs once per batch before acknowledging any of them;
//! snapshots bound the log read at recovery, and every cluster is recovered at start.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod app;
pub mod client;
pub mod cluster;
pub mod cors;
pub mod error;
pub mod metrics;
pub mod server;
pub mod store;
pub mod wal;
pub mod writer;

pub use server::{check, open_app, run, serve_on, start, Args, Running, StartError};
