//! One task per game WebSocket: reads client messages (through an [`Inbox`], with its
//! size and rate limits), answers what it can itself, and forwards the rest to the
//! game's task.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Utf8Bytes, WebSocket};
use jieqi_core::Viewer;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::knowledge::viewer_name;
use crate::protocol::out::PongOut;
use crate::protocol::{self, ClientIn, ClientOut, ErrorCode, Outgoing, ProtoError};
use crate::socket::{Inbox, Refusal};
use crate::{GameHandle, Shared};

/// Frames (and messages) larger than this close the connection with code 1009
/// (message too big). The WebSocket layer refuses them as soon as it reads their
/// length, before buffering them.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
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
}

/// Serves one WebSocket until it closes or the server stops.
pub async fn serve_socket(
    socket: WebSocket,
    shared: Arc<Shared>,
    user: Option<String>,
    addr: Option<IpAddr>,
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
    shared.conn_closed();
    let (game, viewer) = match &session.joined {
        Some((g, v)) => (Some(tracing::field::display(g)), Some(viewer_name(*v))),
        None => (None, None),
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

impl Session {
    async fn handle(
        &mut self,
        text: &str,
        inbox: &mut Inbox,
    ) -> Result<(), (Option<String>, ProtoError)> {
        let inc = protocol::parse(text)?;
        let t = Some(inc.msg.type_name().to_string());
        match inc.msg {
            ClientIn::Ping { ts } => {
                reply(inbox, ClientOut::Pong(PongOut { ts })).await;
                Ok(())
            }
            ClientIn::Join { game, token, watch } => {
                if self.game.is_some() {
                    return Err((
                        t,
                        ProtoError::new(
                            ErrorCode::AlreadyJoined,
                            "this connection has joined a game",
                        ),
                    ));
                }
                // A game task may end (idle) between lookup and send: look up again.
                for _ in 0..3 {
                    let handle = match self.shared.game(&game).await {
                        Ok(Some(h)) => h,
                        Ok(None) => {
                            return Err((t, ProtoError::new(ErrorCode::NoGame, "no such game")));
                        }
                        Err(e) => {
                            tracing::error!("loading game {game}: {e}");
                            return Err((
                                t,
                                ProtoError::new(ErrorCode::Internal, "the game cannot be loaded"),
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
                            self.joined = Some((game, viewer));
                            Ok(())
                        }
                        Ok(Err(e)) => Err((t, e)),
                    };
                }
                Err((
                    t,
                    ProtoError::new(ErrorCode::Internal, "the game is unavailable"),
                ))
            }
            msg => {
                let Some(game) = &self.game else {
                    return Err((t, ProtoError::new(ErrorCode::NotJoined, "send join first")));
                };
                if game.client(self.conn, msg, inc.v).await.is_err() {
                    return Err((
                        t,
                        ProtoError::new(ErrorCode::Internal, "the game stopped; reconnect"),
                    ));
                }
                Ok(())
            }
        }
    }
}
