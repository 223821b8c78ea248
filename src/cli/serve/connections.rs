//! The service's connections: HTTP/1.1 on hyper, each bounded in time and
//! in number, so that no client can hold the service's memory or its
//! connections for ever.
//!
//! hyper's connections rather than `axum::serve`'s, which have no timer:
//! a connection that has not sent a whole request head `header_timeout`
//! after hyper began to wait for one is closed without an answer (a
//! client that sends a partial head and then nothing, or idles between
//! requests, would otherwise hold it for ever). hyper has no write
//! timeout: [`WriteDeadline`] is one (hand-written, a few lines, rather
//! than a crate for it), for a client that sends requests and never reads
//! their answers, whose connection would otherwise wait for ever with its
//! buffers full. And at most `max_connections` are served at once: the
//! ones after them wait in the listening socket's backlog.

use axum::Router;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a stopping service waits for the requests in flight.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What bounds each connection, and their number.
pub struct Limits {
    /// Time to send a request's head.
    pub header_timeout: Duration,
    /// Time a write of an answer may make no progress.
    pub write_timeout: Duration,
    /// Connections served at once.
    pub max_connections: u64,
}

/// Serves HTTP/1.1 connections until SIGTERM or SIGINT, then finishes the
/// requests in flight, for at most [`SHUTDOWN_GRACE`]: a client that stalls
/// mid-request must not hold the service up.
pub async fn serve(
    mut listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
) -> anyhow::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut stop = std::pin::pin!(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(limits.header_timeout);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let permits = usize::try_from(limits.max_connections).unwrap_or(usize::MAX);
    let permits = Arc::new(tokio::sync::Semaphore::new(permits));
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit?,
            () = &mut stop => break,
        };
        let io = tokio::select! {
            // axum's `accept` retries on an error: at once when it was the
            // connection's own (a reset), else after 1 s (too many files open).
            (io, _) = axum::serve::Listener::accept(&mut listener) => io,
            () = &mut stop => break,
        };
        let io = WriteDeadline { io, limit: limits.write_timeout, stalled: None };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let conn = http.serve_connection(hyper_util::rt::TokioIo::new(io), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A connection's error (a reset, a timeout) is its own.
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            eprintln!("lgrscan: requests still open {SHUTDOWN_GRACE:?} after the signal: stopping");
        }
    }
    Ok(())
}

/// A connection whose writes fail once one has made no progress for
/// `limit`: the client stopped reading.
struct WriteDeadline<T> {
    io: T,
    limit: Duration,
    /// Armed when a write could not go on, disarmed when one does.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> WriteDeadline<T> {
    /// `poll`, a write's outcome, or a timeout once writes have been
    /// pending for `limit`.
    fn watch<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let limit = self.limit;
        let sleep = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read no answer within the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch(cx, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_flush(cx);
        this.watch(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_shutdown(cx);
        this.watch(cx, poll)
    }
}
