//! `queens serve CAMPAIGN`: the campaign's status page, read-only, for a browser: progress
//! and the expected end, throughput per host and per board, the quiet ones, the
//! cross-checks, the total. Answers from what `db stats` reads, afresh for every request.

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use queens_core::BoardSize;
use queens_host::status::Status;
use queens_host::store::file::Watch;
use queens_host::store::stats::Stats;
use queens_host::store::Location;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct ServeArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: Location,
    /// Which campaign of the database, when it holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    /// Where to serve the page: HOST:PORT (port 0: any free one; the address is printed).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8027")]
    listen: String,
    /// A secret every request must carry (?token=… or Authorization: Bearer …); required
    /// when --listen is not a loopback address. Also from QUEENS_SERVE_TOKEN.
    #[arg(long)]
    token: Option<String>,
    /// Seconds of silence after which a board counts as quiet (default: ten times its usual
    /// gap between results, at least 120).
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_timeout)]
    quiet: Option<f64>,
    /// Seconds between the page's own refreshes.
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=3600))]
    refresh: u32,
}

struct Served {
    campaign: Location,
    n: Option<BoardSize>,
    token: Option<String>,
    quiet: Option<f64>,
    refresh: u32,
}

pub fn serve(a: ServeArgs) -> anyhow::Result<()> {
    let token = a
        .token
        .clone()
        .or_else(|| std::env::var("QUEENS_SERVE_TOKEN").ok())
        .filter(|t| !t.is_empty());
    let addrs: Vec<std::net::SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(&a.listen)
        .with_context(|| format!("--listen {}: expected HOST:PORT, e.g. 127.0.0.1:8027", a.listen))?
        .collect();
    if token.is_none() && addrs.iter().any(|x| !x.ip().is_loopback()) {
        anyhow::bail!(
            "--listen {}: beyond this machine the page needs a token: give --token SECRET (or QUEENS_SERVE_TOKEN) and open http://HOST:PORT/?token=SECRET",
            a.listen
        );
    }
    // The campaign must open now: a mistyped name is said at once, not on the first visit.
    read(&a.campaign, a.n)?;
    let state = Arc::new(Served {
        campaign: a.campaign.clone(),
        n: a.n,
        token,
        quiet: a.quiet,
        refresh: a.refresh,
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .context("starting the web server's runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addrs[..])
            .await
            .with_context(|| format!("--listen {}: cannot serve there (a port in use?)", a.listen))?;
        let at = listener.local_addr()?;
        println!(
            "serving the status of {} at http://{at}/{}",
            a.campaign.shown(),
            if state.token.is_some() { "?token=…" } else { "" }
        );
        let app = axum::Router::new()
            .route("/", get(page))
            .route("/status.json", get(json))
            .route_layer(axum::middleware::from_fn_with_state(state.clone(), require_token))
            .with_state(state);
        axum::serve(listener, app)
            .await
            .context("serving the status page")
    })
}

fn read(campaign: &Location, n: Option<BoardSize>) -> anyhow::Result<Stats> {
    Ok(Stats::read(campaign, n, false, &Watch::default())?)
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The request carries the token, when one is asked for.
fn allowed(s: &Served, q: &HashMap<String, String>, h: &HeaderMap) -> bool {
    let Some(want) = &s.token else {
        return true;
    };
    let bearer = h
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    q.get("token").map(String::as_str) == Some(want.as_str()) || bearer == Some(want.as_str())
}

/// The status, read on a thread of its own (a shared campaign's client blocks, and runs a
/// runtime of its own).
async fn status(s: &Arc<Served>) -> Result<Status, Response> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let s2 = s.clone();
    std::thread::spawn(move || {
        let r = read(&s2.campaign, s2.n).map(|st| Status::of(&st, now(), s2.quiet));
        let _ = tx.send(r);
    });
    match rx.await {
        Ok(Ok(st)) => Ok(st),
        Ok(Err(e)) => Err((
            StatusCode::SERVICE_UNAVAILABLE,
            format!("reading the campaign: {e:#}\n"),
        )
            .into_response()),
        Err(_) => Err((StatusCode::INTERNAL_SERVER_ERROR, "reading the campaign failed\n").into_response()),
    }
}

/// Every route asks for the token, when one is set.
async fn require_token(
    State(s): State<Arc<Served>>,
    Query(q): Query<HashMap<String, String>>,
    h: HeaderMap,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !allowed(&s, &q, &h) {
        return (StatusCode::UNAUTHORIZED, "a token is needed: ?token=…\n").into_response();
    }
    next.run(request).await
}

async fn page(State(s): State<Arc<Served>>, Query(q): Query<HashMap<String, String>>) -> Response {
    let query = q
        .get("token")
        .map_or(String::new(), |t| format!("?token={}", url_escape(t)));
    match status(&s).await {
        Ok(st) => Html(st.html(s.refresh, &query)).into_response(),
        Err(r) => r,
    }
}

async fn json(State(s): State<Arc<Served>>) -> Response {
    match status(&s).await {
        Ok(st) => axum::Json(st).into_response(),
        Err(r) => r,
    }
}

/// A token as a query value.
fn url_escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
