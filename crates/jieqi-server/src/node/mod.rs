//! Several nodes on one PostgreSQL database (docs/server.md, "Several nodes").
//!
//! Each live game is served by the one node that holds its lease
//! ([`crate::store::PostgresStore::acquire`]); a node asked for a game another live
//! node serves forwards the client there ([`forward`]). The heartbeat renews this
//! node's leases every third of a lease, stops the games it has lost and takes over
//! the games of dead nodes through the restart path (clocks resume from the stored
//! times, the downtime charged to nobody). The seek pool and tournament direction live
//! on the node that holds the lease [`LOBBY`].

pub mod forward;

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::Shared;
use crate::store::{Holder, PostgresStore, StoreError};

/// The lease of the seek pool and of tournament direction.
pub const LOBBY: &str = "@lobby";

/// This server as a node of a cluster.
pub struct Node {
    /// Its id (fresh at each start).
    pub id: String,
    /// The address other nodes reach it at (`HOST:PORT`).
    pub addr: String,
    /// How long a lease lasts without renewal.
    pub lease: Duration,
    /// The database, with the leases.
    pub store: Arc<PostgresStore>,
}

/// The settings of a node (`jieqi serve --node-addr`).
#[derive(Clone, Debug)]
pub struct NodeConfig {
    /// The address other nodes reach this one at (`HOST:PORT`; port 0: the port the
    /// server listens on).
    pub addr: String,
    /// How long a lease lasts without renewal.
    pub lease: Duration,
}

/// Where a game is served.
pub enum Located {
    /// Here: its task.
    Here(crate::GameHandle),
    /// By the live node at this address (`HOST:PORT`).
    At(String),
}

/// `addr` with port 0 replaced by the port the server listens on.
pub fn resolve_addr(addr: &str, listening: std::net::SocketAddr) -> Result<String, String> {
    let (host, port) = addr
        .rsplit_once(':')
        .ok_or_else(|| format!("node address {addr:?}: expected HOST:PORT"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("node address {addr:?}: the port is not a number"))?;
    if host.is_empty() {
        return Err(format!("node address {addr:?}: the host is missing"));
    }
    let port = if port == 0 { listening.port() } else { port };
    Ok(format!("{host}:{port}"))
}

impl Node {
    /// Who holds the seek pool and directs tournaments: `None` this node (which takes
    /// the lease if it is free or expired), else the holder's address.
    pub async fn lobby_holder(&self, shared: &Arc<Shared>) -> Result<Option<String>, StoreError> {
        if self.store.holds(LOBBY) {
            return Ok(None);
        }
        match self.store.acquire(LOBBY).await? {
            Holder::Me { epoch } => {
                tracing::info!(node = %self.id, epoch, "lobby lease taken");
                // Tournament state as the previous director left it.
                if let Err(e) = crate::tournament::load_all(shared).await {
                    tracing::error!("tournaments: {e}");
                }
                Ok(None)
            }
            Holder::Other { addr, .. } => Ok(Some(addr)),
        }
    }
}

/// Starts the heartbeat of this node: every third of a lease it renews the node's
/// leases, stops serving the games it lost, and takes over the games no live node
/// serves. At shutdown it gives its leases up, so that the other nodes take its games
/// over at once.
pub fn spawn_heartbeat(shared: Arc<Shared>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let Some(node) = shared.node.as_ref() else {
            return;
        };
        let every = node.lease / 3;
        let mut renewed = Instant::now();
        let mut stop = shared.stopped();
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = &mut stop => break,
            }
            // A database that hangs counts as one that fails.
            let renewal = tokio::time::timeout(every, node.store.renew())
                .await
                .unwrap_or_else(|_| Err(StoreError::Database("no answer".into())));
            match renewal {
                Ok(lost) => {
                    renewed = Instant::now();
                    for key in lost {
                        stop_serving(&shared, &key).await;
                    }
                }
                Err(e) => {
                    tracing::warn!(node = %node.id, "cannot renew the leases: {e}");
                    if renewed.elapsed() >= node.lease {
                        // The leases have expired: another node may serve the games.
                        for id in shared.registry.ids() {
                            stop_serving(&shared, &id).await;
                        }
                    }
                    continue;
                }
            }
            if let Err(e) = node.lobby_holder(&shared).await {
                tracing::warn!("lobby lease: {e}");
            }
            take_over_orphans(&shared).await;
        }
    })
}

/// Stops serving what the lease `key` covered (its clients reconnect and are sent to
/// the new holder).
async fn stop_serving(shared: &Shared, key: &str) {
    if key == LOBBY {
        tracing::warn!("lobby lease lost");
        return;
    }
    if let Some(h) = shared.registry.get(key) {
        tracing::warn!(game = %key, "lease lost: no longer served here");
        h.release().await;
    }
}

/// Takes over every unfinished game whose node is gone (and every game never leased:
/// those of a single server before it became a node).
pub async fn take_over_orphans(shared: &Arc<Shared>) {
    let Some(node) = shared.node.as_ref() else {
        return;
    };
    let ids = match node.store.orphans().await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!("orphaned games: {e}");
            return;
        }
    };
    for id in ids {
        if let Err(e) = shared.locate(&id).await {
            tracing::error!(game = %id, "cannot take over: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_addr;

    #[test]
    fn node_addresses_are_checked_and_port_0_is_the_listening_port() {
        let listening = "127.0.0.1:4321".parse().unwrap();
        assert_eq!(
            resolve_addr("10.0.0.2:0", listening).unwrap(),
            "10.0.0.2:4321"
        );
        assert_eq!(
            resolve_addr("node-a:8080", listening).unwrap(),
            "node-a:8080"
        );
        assert_eq!(resolve_addr("[::1]:0", listening).unwrap(), "[::1]:4321");
        for bad in ["node-a", ":8080", "node-a:http", "node-a:70000"] {
            assert!(resolve_addr(bad, listening).is_err(), "{bad}");
        }
    }
}
