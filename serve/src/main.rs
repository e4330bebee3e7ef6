//! `mlsched-serve`: the service binary (`mlsched serve` once the CLI wires it in).
use clap::Parser;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mlsched-serve",
    about = "A durable, crash-safe mlsched scheduling service"
)]
struct Cli {
    #[command(flatten)]
    args: mlsched_serve::Args,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match mlsched_serve::run(cli.args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code)
        }
    }
}
