//! `litnav bench …`: the benchmark suites, defined with their options in `litnav_bench::suites`;
//! here they get the terminal's progress display and their report is printed.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::Progress;
use litnav_bench::suites::Face;
use std::io::Write;

pub use litnav_bench::suites::Suite;

/// The terminal as the suites' face.
struct Shown;

impl Face for Shown {
    fn start(&self, title: &str) -> Box<dyn Progress + '_> {
        Box::new(Terminal::start(title))
    }

    fn progress(&self) -> Box<dyn Progress + '_> {
        Box::new(Terminal::new())
    }
}

pub fn run(suite: Suite) -> Result<()> {
    let printed = litnav_bench::suites::run(suite, &Shown)?;
    std::io::stdout().lock().write_all(printed.as_bytes())?;
    Ok(())
}
