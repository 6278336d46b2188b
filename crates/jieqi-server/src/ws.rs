//! One task per game WebSocket: reads client messages (through an [`Inbox`], with its
//! size and rate limits), answers what it can itself, and forwards the rest to the
//! game's task.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Utf8Bytes, WebSocket};
use axum::http::HeaderMap;
use futures_util::SinkExt;
use jieqi_core::Viewer;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use crate::knowledge::viewer_name;
use crate::node::Located;
use crate::node::forward::{self, UpstreamSink};
use crate::protocol::out::PongOut;
use crate::protocol::{self, ClientIn, ClientOut, ErrorCode, Outgoing, ProtoError};
use crate::socket::{Inbox, Refusal};
use crate::{GameHandle, Shared};

/// Frames (and messages) larger than this close the connection with code 1009
/// (message too big). The WebSocket layer refuses them as soon as it reads their
/// length, before buffering them.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// Bytes read from a game or lobby socket at a time. Client messages are a few hundred
/// bytes; the WebSocket layer zeroes the free part of its buffer before every read
/// (the one that finds the message and the one that finds nothing more), so a larger
/// buffer costs a memset of cold memory per read and resident memory per connection.
/// A longer message takes several reads.
pub const READ_BUFFER_BYTES: usize = 1024;
/// Sustained messages per second per connection (default).
pub const RATE_PER_SEC: f64 = 20.0;
/// Burst allowance (default).
pub const RATE_BURST: f64 = 40.0;

struct Session {
    shared: Arc<Shared>,
    conn: u64,
    outbox: mpsc::Sender<Utf8Bytes>,
    game: Option<GameHandle>,
    /// The game joined and as whom (for the log: never the token).
    joined: Option<(String, Viewer)>,
    /// The account of the connection's session, if logged in.
    user: Option<String>,
    /// The peer's address (a guest spectator's chat limit).
    addr: Option<IpAddr>,
    /// The upgrade request's headers (the identity forwarded to another node).
    headers: HeaderMap,
    /// The node serving the joined game, when it is another one: the client's
    /// messages go there as they are.
    upstream: Option<UpstreamSink>,
    /// The game joined through another node (for the log).
    forwarded_game: Option<String>,
}

/// Serves one WebSocket until it closes or the server stops.
pub async fn serve_socket(
    socket: WebSocket,
    shared: Arc<Shared>,
    user: Option<String>,
    addr: Option<IpAddr>,
    headers: HeaderMap,
) {
    shared.conn_opened();
    let conn = shared.next_conn_id();
    let opened = Instant::now();
    tracing::info!(conn, "connection accepted");
    let (mut inbox, outbox) = Inbox::new(socket, &shared);
    let mut session = Session {
        shared: Arc::clone(&shared),
        conn,
        outbox,
        game: None,
        joined: None,
        user,
        addr,
        headers,
        upstream: None,
        forwarded_game: None,
    };
    // Why the connection ended, for the log.
    let why: &str = loop {
        let text = match inbox.next_text(refused).await {
            Ok(t) => t,
            Err(why) => break why,
        };
        if let Err((t, e)) = session.handle(&text, &mut inbox).await
            && !reply(&mut inbox, e.to_out(t.as_deref())).await
        {
            break "gone";
        }
    };
    if let Some(game) = &session.game {
        game.leave(conn).await;
    }
    if let Some(up) = &mut session.upstream {
        let _ = up.send(Message::Close(None)).await;
    }
    shared.conn_closed();
    let (game, viewer) = match (&session.joined, &session.forwarded_game) {
        (Some((g, v)), _) => (Some(tracing::field::display(g)), Some(viewer_name(*v))),
        (None, Some(g)) => (Some(tracing::field::display(g)), Some("forwarded")),
        (None, None) => (None, None),
    };
    tracing::info!(
        conn,
        game,
        viewer,
        why,
        secs = opened.elapsed().as_secs(),
        "connection closed"
    );
}

/// The game protocol's error for a message the inbox refused unread.
fn refused(r: Refusal) -> Utf8Bytes {
    let code = match r {
        Refusal::Binary => ErrorCode::BadJson,
        Refusal::RateLimited(_) => ErrorCode::RateLimited,
    };
    let e = ProtoError::new(code, r.to_string());
    Outgoing::new(0, e.to_out(None)).to_text().into()
}

/// Sends a message the connection answers itself (version 0, docs/protocol.md §3.5);
/// false if the socket is gone.
async fn reply(inbox: &mut Inbox, msg: ClientOut) -> bool {
    inbox.send(Outgoing::new(0, msg).to_text().into()).await
}

/// How long a join keeps trying: a game task that ends (idle, or fenced) between
/// lookup and join is looked up again, and a game whose node has just died is taken
/// over once its lease expires.
fn join_patience(shared: &Shared) -> Duration {
    shared
        .node
        .as_ref()
        .map_or(Duration::from_millis(100), |n| {
            n.lease + Duration::from_secs(2)
        })
}

impl Session {
    /// Joins game `game` (the client's message was `text`): here, or through the node
    /// that serves it.
    async fn join(
        &mut self,
        game: &str,
        token: Option<String>,
        watch: bool,
        text: &str,
    ) -> Result<(), ProtoError> {
        let until = Instant::now() + join_patience(&self.shared);
        let mut last = "the game is unavailable".to_string();
        while Instant::now() < until {
            let handle = match self.shared.locate(game).await {
                Ok(Some(Located::Here(h))) => h,
                Ok(Some(Located::At(addr))) => {
                    if forward::is_forwarded(&self.headers) {
                        // Two nodes disagree for a moment: the client asks again.
                        return Err(ProtoError::new(
                            ErrorCode::Internal,
                            "the game is moving between nodes; reconnect",
                        ));
                    }
                    match forward::connect(&addr, "/ws", &self.headers).await {
                        Ok(up) => {
                            let mut sink = forward::relay_down(up, self.outbox.clone());
                            if sink.send(Message::Text(text.into())).await.is_ok() {
                                tracing::info!(conn = self.conn, %game, node = %addr, "connection forwarded");
                                self.forwarded(sink, game);
                                return Ok(());
                            }
                            last = format!("node {addr} is gone");
                        }
                        // Its node is down: its lease will expire and the game be
                        // taken over.
                        Err(e) => last = e,
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    continue;
                }
                Ok(None) => return Err(ProtoError::new(ErrorCode::NoGame, "no such game")),
                Err(e) => {
                    tracing::error!("loading game {game}: {e}");
                    return Err(ProtoError::new(
                        ErrorCode::Internal,
                        "the game cannot be loaded",
                    ));
                }
            };
            let answer = handle
                .join(
                    self.conn,
                    token.clone(),
                    watch,
                    self.user.clone(),
                    self.addr,
                    self.outbox.clone(),
                )
                .await;
            return match answer {
                Err(_gone) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
                Ok(Ok(viewer)) => {
                    tracing::info!(
                        conn = self.conn,
                        %game,
                        viewer = viewer_name(viewer),
                        "connection joined"
                    );
                    self.game = Some(handle);
                    self.joined = Some((game.to_string(), viewer));
                    self.drop_outbox();
                    Ok(())
                }
                Ok(Err(e)) => Err(e),
            };
        }
        tracing::warn!(%game, "cannot join: {last}");
        Err(ProtoError::new(
            ErrorCode::Internal,
            "the game is unavailable; reconnect",
        ))
    }

    /// From now on the client's messages go to `sink`.
    fn forwarded(&mut self, sink: UpstreamSink, game: &str) {
        self.upstream = Some(sink);
        self.forwarded_game = Some(game.to_string());
        self.drop_outbox();
    }

    /// Lets the socket's queue belong to whoever feeds it (the game's task, or the
    /// relay from another node) alone: when that ends, the socket closes and the
    /// client reconnects, instead of staying on a game nobody serves.
    fn drop_outbox(&mut self) {
        let (closed, _) = mpsc::channel(1);
        self.outbox = closed;
    }

    async fn handle(
        &mut self,
        text: &str,
        inbox: &mut Inbox,
    ) -> Result<(), (Option<String>, ProtoError)> {
        if let Some(up) = &mut self.upstream {
            // The serving node answers everything, errors included.
            if up.send(Message::Text(text.into())).await.is_err() {
                return Err((
                    None,
                    ProtoError::new(ErrorCode::Internal, "the game's node is gone; reconnect"),
                ));
            }
            return Ok(());
        }
        let inc = protocol::parse(text)?;
        // The type's name is copied only for an error's `in` (not for every move).
        let t = inc.msg.type_name();
        let t = move || Some(t.to_string());
        match inc.msg {
            ClientIn::Ping { ts } => {
                reply(inbox, ClientOut::Pong(PongOut { ts })).await;
                Ok(())
            }
            ClientIn::Join { game, token, watch } => {
                if self.game.is_some() {
                    return Err((
                        t(),
                        ProtoError::new(
                            ErrorCode::AlreadyJoined,
                            "this connection has joined a game",
                        ),
                    ));
                }
                self.join(&game, token, watch, text)
                    .await
                    .map_err(|e| (t(), e))
            }
            msg => {
                let Some(game) = &self.game else {
                    return Err((
                        t(),
                        ProtoError::new(ErrorCode::NotJoined, "send join first"),
                    ));
                };
                if game.client(self.conn, msg, inc.v).await.is_err() {
                    return Err((
                        t(),
                        ProtoError::new(ErrorCode::Internal, "the game stopped; reconnect"),
                    ));
                }
                Ok(())
            }
        }
    }
}
