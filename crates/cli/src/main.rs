//! The `litnav` command (see the library, `litnav_cli`, for what it does).

fn main() {
    std::process::exit(litnav_cli::main_with(std::env::args_os()));
}
