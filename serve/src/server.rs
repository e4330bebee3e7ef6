//! Starting the service: the command-line arguments, the listening rules (loopback unless a
//! token protects it), recovery, and a clean stop on SIGINT / SIGTERM.
use crate::app::App;
use crate::metrics::Metrics;
use crate::store::{FsStore, Store};
use crate::writer::Env;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// `mlsched serve` arguments (a clap `Args`, so the CLI flattens it into its subcommand).
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Address to listen on; a non-loopback address needs --token-file.
    #[arg(long, default_value = "127.0.0.1:7070")]
    pub listen: SocketAddr,
    /// Directory of the durable state (created if absent): one directory per cluster.
    #[arg(long)]
    pub state: PathBuf,
    /// File holding the bearer token every request but /v1/health must carry.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Events between two snapshots of a cluster (bounds the log read at recovery).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_every: u64,
    /// Largest event body, in bytes (413 past it).
    #[arg(long, default_value_t = 64 * 1024)]
    pub max_event_bytes: usize,
    /// Largest scenario document, in bytes (413 past it).
    #[arg(long, default_value_t = 64 * 1024 * 1024)]
    pub max_scenario_bytes: usize,
}

/// Why the service did not start (exit code 2: the arguments; 1: the machine).
#[derive(Debug)]
pub struct StartError {
    /// What to print.
    pub message: String,
    /// 2 for bad arguments, 1 otherwise.
    pub exit_code: u8,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn usage(message: String) -> StartError {
    StartError {
        message,
        exit_code: 2,
    }
}

fn failure(message: String) -> StartError {
    StartError {
        message,
        exit_code: 1,
    }
}

/// The token of `--token-file` (surrounding whitespace trimmed; empty is refused), and the
/// loopback rule.
pub fn check(args: &Args) -> Result<Option<Vec<u8>>, StartError> {
    let token = match &args.token_file {
        None => None,
        Some(p) => {
            let t = std::fs::read(p)
                .map_err(|e| usage(format!("--token-file {}: {e}", p.display())))?;
            let t = t.trim_ascii().to_vec();
            if t.is_empty() || t.iter().any(|b| !b.is_ascii_graphic()) {
                return Err(usage(format!(
                    "--token-file {}: the token must be one word of printable ASCII",
                    p.display()
                )));
            }
            Some(t)
        }
    };
    if !args.listen.ip().is_loopback() && token.is_none() {
        return Err(usage(format!(
            "refusing to listen on {}: not a loopback address, and no --token-file protects it",
            args.listen
        )));
    }
    Ok(token)
}

/// Opens the state directory with `store` and recovers every cluster.
pub fn open_app(args: &Args, store: Arc<dyn Store>) -> Result<Arc<App>, StartError> {
    let token = check(args)?;
    let env = Env {
        store,
        metrics: Arc::new(Metrics::default()),
        snapshot_every: args.snapshot_every,
    };
    let app = App::open(
        env,
        &args.state,
        token,
        args.max_event_bytes,
        args.max_scenario_bytes,
    )
    .map_err(|e| failure(format!("--state {}: {e}", args.state.display())))?;
    Ok(Arc::new(app))
}

/// Serves `app` on `listener` until `stop` resolves; every cluster commits what it holds.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = crate::api::router(app.clone());
    axum::serve(listener, router)
        .with_graceful_shutdown(stop)
        .await?;
    let a = app.clone();
    let _ = tokio::task::spawn_blocking(move || a.stop_all()).await;
    Ok(())
}

async fn signalled() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// `mlsched serve`: recovers the state, prints `listening on ADDR` (the port chosen when
/// `--listen` names port 0) and serves until SIGINT or SIGTERM.
pub fn run(args: Args) -> Result<(), StartError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| failure(format!("cannot start the runtime: {e}")))?;
    let app = open_app(&args, Arc::new(FsStore))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| failure(format!("--listen {}: {e}", args.listen)))?;
        let addr = listener.local_addr().map_err(|e| failure(e.to_string()))?;
        let recovered = app.clusters.read().map(|c| c.len()).unwrap_or(0);
        println!("listening on {addr} ({recovered} clusters recovered)");
        serve_on(listener, app, signalled())
            .await
            .map_err(|e| failure(format!("serving: {e}")))
    })
}

/// A service running on its own thread (tests, benchmarks): its address and a way to stop it.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The service's state.
    pub app: Arc<App>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Stops the service and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Starts the service of `args` over `store` on a thread of its own (`args.listen` may name
/// port 0).
pub fn start(args: &Args, store: Arc<dyn Store>) -> Result<Running, StartError> {
    let app = open_app(args, store)?;
    let std_listener = std::net::TcpListener::bind(args.listen)
        .map_err(|e| failure(format!("--listen {}: {e}", args.listen)))?;
    let addr = std_listener
        .local_addr()
        .map_err(|e| failure(e.to_string()))?;
    std_listener
        .set_nonblocking(true)
        .map_err(|e| failure(e.to_string()))?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let a = app.clone();
    let thread = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            if let Ok(l) = tokio::net::TcpListener::from_std(std_listener) {
                let _ = serve_on(l, a, async move {
                    let _ = rx.await;
                })
                .await;
            }
        });
    });
    Ok(Running {
        addr,
        app,
        stop: Some(tx),
        thread: Some(thread),
    })
}
