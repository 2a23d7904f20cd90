//! End-to-end tests of the `litnav` binary: what a user types, what they see. One test binary
//! of modules (ripgrep's layout), so the binary links once. Tests of the `datasets`, `llm-server`,
//! `browser` and `node` tiers are ignored unless the crate's feature of that name is on (see
//! litnav-testkit); CI turns every feature on.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

#[cfg(feature = "analytics")]
mod analytics;
mod bottom_up;
mod concurrency;
mod corpus;
mod defaults;
mod eval;
mod faults;
mod fetch;
mod llm;
mod maps;
mod mcp;
mod navigator;
mod relations;
mod researcharena;
mod scinet;
mod serve;
mod survey;
mod taxobench;
mod util;
mod webdriver;
