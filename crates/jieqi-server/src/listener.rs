//! The TCP side of the server: accepting connections and serving HTTP/1.1 on them
//! (with WebSocket upgrades), with the limits an attacker would otherwise exhaust: a
//! cap on connections per address, a deadline for a request's headers, and an idle
//! timeout on every connection (docs/server.md, "Limits").

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tower_service::Service;

use crate::{Limits, Shared};

/// Open TCP connections per client address.
#[derive(Default)]
pub struct ConnectionCounts {
    by_addr: Mutex<HashMap<IpAddr, usize>>,
}

/// One counted connection; uncounted when dropped.
pub struct Counted {
    counts: Arc<ConnectionCounts>,
    ip: IpAddr,
}

impl ConnectionCounts {
    /// Counts a connection from `ip`, unless `ip` already has `max`.
    pub fn try_open(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Counted> {
        let mut m = self.by_addr.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(ip).or_default();
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Counted {
            counts: Arc::clone(self),
            ip,
        })
    }

    /// Open connections in all.
    pub fn total(&self) -> usize {
        self.by_addr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .sum()
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut m = self
            .counts
            .by_addr
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

/// A stream that fails with `TimedOut` when nothing has been read from it for
/// `idle`: a silent peer (an idle keep-alive, a WebSocket that answers no ping) holds
/// no file descriptor for longer than that.
pub struct IdleTimeout<S> {
    inner: S,
    idle: Duration,
    /// When something was last read.
    last_read: Instant,
    /// Fires at `idle` after some read, not necessarily the last: moving the timer at
    /// every read (a timer-wheel update per message) cost more than checking
    /// `last_read` when it fires and moving it on then.
    timer: Pin<Box<Sleep>>,
}

impl<S> IdleTimeout<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, idle: Duration) -> IdleTimeout<S> {
        IdleTimeout {
            inner,
            idle,
            last_read: Instant::now(),
            timer: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// Whether the connection has been idle too long; when the timer fired early (a
    /// read came since it was set), it is set again for `idle` after that read.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            if self.timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            let due = self.last_read + self.idle;
            if due <= Instant::now() {
                return true;
            }
            self.timer.as_mut().reset(due);
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for IdleTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    self.last_read = Instant::now();
                }
                Poll::Ready(r)
            }
            Poll::Pending if self.poll_idle(cx) => Poll::Ready(Err(idle_error())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        // A peer that reads nothing (its window full) and sends nothing either is as
        // gone as a silent one: a write waiting on it fails at the same deadline.
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Pending if self.poll_idle(cx) => Poll::Ready(Err(idle_error())),
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

fn idle_error() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "idle connection")
}

/// Accepts and serves connections until shutdown begins, then lets every open
/// connection finish its request.
pub async fn serve(listener: TcpListener, app: axum::Router, shared: Arc<Shared>) {
    let mut stop = shared.stopped();
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, peer)) => {
                    let Some(counted) = shared
                        .tcp_connections
                        .try_open(peer.ip(), shared.limits.max_connections_per_address)
                    else {
                        tracing::debug!(%peer, "connection refused: too many from this address");
                        continue;
                    };
                    let app = app.clone();
                    let shared = Arc::clone(&shared);
                    conns.spawn(async move {
                        serve_connection(tcp, peer, app, &shared).await;
                        drop(counted);
                    });
                }
                // Out of file descriptors (or another passing failure): keep serving
                // the open connections and try again shortly, never spin.
                Err(e) => {
                    tracing::warn!("accept error: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            _ = &mut stop => break,
        }
    }
    drop(listener);
    while conns.join_next().await.is_some() {}
}

async fn serve_connection(tcp: TcpStream, peer: SocketAddr, app: axum::Router, shared: &Shared) {
    // TCP_NODELAY: small messages go out at once, never held back by Nagle.
    let _ = tcp.set_nodelay(true);
    let limits: &Limits = &shared.limits;
    let io = TokioIo::new(IdleTimeout::new(tcp, limits.idle_timeout));
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        let mut app = app.clone();
        async move { app.call(req).await }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(io, service)
        .with_upgrades();
    tokio::pin!(conn);
    let stop = shared.stopped();
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(%peer, "connection ended: {e}");
            }
        }
        _ = stop => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(Duration::from_secs(5), conn).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A peer that keeps talking is never cut off, over many idle periods (the timer is
    /// moved on lazily when it fires); once it falls silent, the read fails.
    #[tokio::test]
    async fn only_a_silent_peer_times_out() {
        let idle = Duration::from_millis(150);
        let (mut peer, ours) = tokio::io::duplex(64);
        let mut ours = IdleTimeout::new(ours, idle);
        let talker = tokio::spawn(async move {
            for i in 0..40u8 {
                peer.write_all(&[i]).await.unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            peer // kept open, silent
        });
        let mut got = Vec::new();
        let mut b = [0u8; 8];
        while got.len() < 40 {
            let n = ours
                .read(&mut b)
                .await
                .expect("a talking peer is never idle");
            got.extend_from_slice(&b[..n]);
        }
        assert_eq!(got, (0..40).collect::<Vec<u8>>());
        let _peer = talker.await.unwrap();
        let e = tokio::time::timeout(Duration::from_secs(5), ours.read(&mut b))
            .await
            .expect("a silent peer times out")
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    }
}
