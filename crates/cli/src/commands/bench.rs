//! `litnav bench …`: the benchmark suites, defined with their options in `litnav_bench::suites`;
//! here they get the terminal's progress display and their report is printed. The harness (its
//! suites, peers and their Python scripts) is linked only into builds with the `bench` feature; the
//! command a user installs, and the Python package, carry a `bench` that says how to get it.

#[cfg(feature = "bench")]
pub use with_harness::{Suite, run};
#[cfg(not(feature = "bench"))]
pub use without_harness::{Suite, run};

#[cfg(feature = "bench")]
mod with_harness {
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

    /// Run `suite` and print its report.
    pub fn run(suite: Suite) -> Result<()> {
        let printed = litnav_bench::suites::run(suite, &Shown)?;
        std::io::stdout().lock().write_all(printed.as_bytes())?;
        Ok(())
    }
}

/// Compiled in every build (so that its test runs in every tier), used where the harness is not.
#[cfg_attr(feature = "bench", allow(dead_code))]
mod without_harness {
    use anyhow::{Result, bail};

    /// Any suite and its options, taken whole: a build without the harness only says how to get it.
    #[derive(Debug, clap::Subcommand)]
    pub enum Suite {
        /// Every suite (this build has none).
        #[command(external_subcommand)]
        Any(Vec<String>),
    }

    /// Say that this build has no harness, and how to build one that has.
    pub fn run(_suite: Suite) -> Result<()> {
        bail!(
            "this litnav was built without its benchmark harness; build it with \
             `cargo build --release --features bench` (from the repository) and run that binary"
        )
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_build_without_the_harness_says_how_to_build_one_with_it() {
            let message = run(Suite::Any(vec!["search".into()])).unwrap_err().to_string();
            assert!(message.contains("--features bench"), "{message}");
        }
    }
}
