//! Leases: which node serves each live game when several nodes share one database
//! (docs/server.md, "Several nodes").
//!
//! A lease names its node, an expiry on the database's clock (so that the nodes'
//! clocks never matter) and an epoch that grows at each takeover. Fencing: every write
//! to an existing game checks, in the transaction that commits it, that this node
//! still holds the lease at the epoch it took, and locks the lease row (`FOR SHARE`)
//! so that a takeover waits for the write's commit. A takeover therefore loads every
//! move the old owner committed (and so every move it acknowledged), and whatever the
//! old owner tries later is refused with [`StoreError::NotOwner`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use deadpool_postgres::Transaction;

use super::{PostgresStore, db, get};
use crate::store::StoreError;

/// This node's identity and the epochs of the leases it holds.
pub(super) struct Fence {
    node: String,
    lease_secs: f64,
    held: Mutex<HashMap<String, i64>>,
}

impl Fence {
    fn epoch(&self, key: &str) -> Option<i64> {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .copied()
    }

    fn hold(&self, key: &str, epoch: i64) {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_string(), epoch);
    }

    fn drop_key(&self, key: &str) -> Option<i64> {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key)
    }
}

/// Who holds a lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// This node, at this epoch.
    Me {
        /// The lease's epoch (1 for a new game, one more at each takeover).
        epoch: i64,
    },
    /// Another live node.
    Other {
        /// Its id.
        node: String,
        /// The address other nodes reach it at (`HOST:PORT`).
        addr: String,
    },
}

/// Refuses the write to game `game` unless this node holds its lease at the epoch it
/// took; locks the lease row until the commit.
pub(super) async fn check(
    tx: &Transaction<'_>,
    fence: &Fence,
    game: &str,
) -> Result<(), StoreError> {
    let not_owner = || StoreError::NotOwner(game.to_string());
    let epoch = fence.epoch(game).ok_or_else(not_owner)?;
    let st = tx
        .prepare_cached(
            "SELECT 1 FROM game_leases
             WHERE game = $1 AND node = $2 AND epoch = $3 AND expires > now() FOR SHARE",
        )
        .await
        .map_err(db)?;
    match tx
        .query_opt(&st, &[&game, &fence.node, &epoch])
        .await
        .map_err(db)?
    {
        Some(_) => Ok(()),
        None => Err(not_owner()),
    }
}

/// Takes the lease of a game being created, in its creation's transaction.
pub(super) async fn take_new(
    tx: &Transaction<'_>,
    fence: &Fence,
    game: &str,
) -> Result<(), StoreError> {
    let st = tx
        .prepare_cached(
            "INSERT INTO game_leases (game, node, epoch, expires)
             VALUES ($1, $2, 1, now() + make_interval(secs => $3))",
        )
        .await
        .map_err(db)?;
    tx.execute(&st, &[&game, &fence.node, &fence.lease_secs])
        .await
        .map_err(db)?;
    fence.hold(game, 1);
    Ok(())
}

impl PostgresStore {
    /// Makes this store a node of a cluster reachable at `addr` (`HOST:PORT`), whose
    /// leases last `lease`: registers the node and fences its writes from now on.
    /// Returns the node's id (fresh at each start). Only once per store.
    pub async fn join_cluster(&self, addr: &str, lease: Duration) -> Result<String, StoreError> {
        let node = crate::util::new_token();
        let fence = Fence {
            node: node.clone(),
            lease_secs: lease.as_secs_f64(),
            held: Mutex::new(HashMap::new()),
        };
        if self.fence.set(fence).is_err() {
            return Err(StoreError::Database(
                "this store has joined a cluster already".into(),
            ));
        }
        // Nodes silent for a day are forgotten (their leases are long expired).
        self.query(
            "DELETE FROM nodes WHERE heartbeat < now() - interval '1 day'",
            &[],
        )
        .await?;
        self.query(
            "INSERT INTO nodes (id, addr, heartbeat) VALUES ($1, $2, now())",
            &[&node, &addr],
        )
        .await?;
        Ok(node)
    }

    fn fence(&self) -> Result<&Fence, StoreError> {
        self.fence
            .get()
            .ok_or_else(|| StoreError::Database("this store is not a node of a cluster".into()))
    }

    /// This node's id, once it has joined a cluster.
    pub fn node_id(&self) -> Option<&str> {
        self.fence.get().map(|f| f.node.as_str())
    }

    /// Whether this node holds the lease `key` (as far as it knows: the database has
    /// the last word at each write).
    pub fn holds(&self, key: &str) -> bool {
        self.fence.get().is_some_and(|f| f.epoch(key).is_some())
    }

    /// Takes the lease `key` (a game id, or `@lobby`) if it is free, expired or this
    /// node's own (a takeover: the epoch grows); else names the live node that holds
    /// it.
    pub async fn acquire(&self, key: &str) -> Result<Holder, StoreError> {
        let fence = self.fence()?;
        // A lease released between the two statements: try again.
        for _ in 0..3 {
            let rows = self
                .query(
                    "INSERT INTO game_leases (game, node, epoch, expires)
                     VALUES ($1, $2, 1, now() + make_interval(secs => $3))
                     ON CONFLICT (game) DO UPDATE SET node = EXCLUDED.node,
                       epoch = game_leases.epoch + 1, expires = EXCLUDED.expires
                     WHERE game_leases.expires <= now() OR game_leases.node = EXCLUDED.node
                     RETURNING epoch",
                    &[&key, &fence.node, &fence.lease_secs],
                )
                .await?;
            if let Some(r) = rows.first() {
                let epoch: i64 = get(r, 0)?;
                fence.hold(key, epoch);
                return Ok(Holder::Me { epoch });
            }
            let rows = self
                .query(
                    "SELECT l.node, n.addr FROM game_leases l JOIN nodes n ON n.id = l.node
                     WHERE l.game = $1",
                    &[&key],
                )
                .await?;
            if let Some(r) = rows.first() {
                return Ok(Holder::Other {
                    node: get(r, 0)?,
                    addr: get(r, 1)?,
                });
            }
        }
        Err(StoreError::Database(format!(
            "the lease {key} changes hands too fast"
        )))
    }

    /// The heartbeat: marks the node alive and extends its unexpired leases. Returns
    /// the leases it has lost (expired, or taken over), which it must stop serving.
    pub async fn renew(&self) -> Result<Vec<String>, StoreError> {
        let fence = self.fence()?;
        self.query(
            "UPDATE nodes SET heartbeat = now() WHERE id = $1",
            &[&fence.node],
        )
        .await?;
        let rows = self
            .query(
                "UPDATE game_leases SET expires = now() + make_interval(secs => $2)
                 WHERE node = $1 AND expires > now() RETURNING game, epoch",
                &[&fence.node, &fence.lease_secs],
            )
            .await?;
        let mut kept = HashMap::with_capacity(rows.len());
        for r in &rows {
            kept.insert(get::<String>(r, 0)?, get::<i64>(r, 1)?);
        }
        let mut held = fence.held.lock().unwrap_or_else(|p| p.into_inner());
        let lost: Vec<String> = held
            .iter()
            .filter(|(k, e)| kept.get(k.as_str()) != Some(e))
            .map(|(k, _)| k.clone())
            .collect();
        for k in &lost {
            held.remove(k);
        }
        Ok(lost)
    }

    /// Gives the lease `key` up (a finished game leaving memory), so that whichever
    /// node is asked for it next takes it at once.
    pub async fn release(&self, key: &str) -> Result<(), StoreError> {
        let fence = self.fence()?;
        if let Some(epoch) = fence.drop_key(key) {
            self.query(
                "DELETE FROM game_leases WHERE game = $1 AND node = $2 AND epoch = $3",
                &[&key, &fence.node, &epoch],
            )
            .await?;
        }
        Ok(())
    }

    /// Gives every lease up (a graceful shutdown: the other nodes take the games over
    /// without waiting for the leases to expire).
    pub async fn release_all(&self) -> Result<(), StoreError> {
        let fence = self.fence()?;
        fence.held.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.query("DELETE FROM game_leases WHERE node = $1", &[&fence.node])
            .await?;
        self.query("DELETE FROM nodes WHERE id = $1", &[&fence.node])
            .await?;
        Ok(())
    }

    /// The unfinished games no live node serves (never leased, or their node's lease
    /// expired): the games to take over.
    pub async fn orphans(&self) -> Result<Vec<String>, StoreError> {
        self.query(
            "SELECT g.id FROM games g LEFT JOIN game_leases l ON l.game = g.id
             WHERE g.result IS NULL AND (l.game IS NULL OR l.expires <= now())",
            &[],
        )
        .await?
        .iter()
        .map(|r| get(r, 0))
        .collect()
    }
}
