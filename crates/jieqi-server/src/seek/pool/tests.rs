//! The pool driven step by step: compatibility (time control, rated or casual,
//! colour, rating ranges both ways, guests, oneself), accepting (once only),
//! cancelling, disconnecting and the limits.

use super::*;

fn tc(time: &str) -> TimeControl {
    TimeControl::parse(time, None).unwrap().unwrap()
}

fn guest(conn: u64) -> Seeker {
    Seeker {
        who: Identity {
            conn,
            user: None,
            browser: Some(format!("browser{conn}")),
        },
        ratings: None,
    }
}

/// A logged-in player rated `rating` (settled, not provisional) in every category.
fn account(conn: u64, name: &str, rating: f64) -> Seeker {
    Seeker {
        who: Identity {
            conn,
            user: Some(name.to_string()),
            browser: Some(format!("browser{conn}")),
        },
        ratings: Some(ByCategory::new_with(|_| Rating {
            rating,
            deviation: 60.0,
            volatility: 0.06,
        })),
    }
}

fn casual(time: &str) -> Terms {
    Terms {
        tc: tc(time),
        rated: false,
        color: None,
        range: None,
    }
}

fn rated(time: &str) -> Terms {
    Terms {
        rated: true,
        ..casual(time)
    }
}

/// The seek added by a step that must have added one.
fn added(effects: Vec<Effect>) -> Seek {
    match effects.as_slice() {
        [Effect::Added(s)] => s.clone(),
        other => panic!("expected one seek added, got {other:?}"),
    }
}

/// The pairing of a step that must have paired, and the seeks it removed.
fn paired(effects: Vec<Effect>) -> (Pairing, Vec<SeekId>) {
    let mut removed = Vec::new();
    let mut pairing = None;
    for e in effects {
        match e {
            Effect::Removed(id) => removed.push(id),
            Effect::Paired(p) => pairing = Some(p),
            Effect::Added(s) => panic!("a pairing step added {s:?}"),
        }
    }
    (pairing.expect("a pairing"), removed)
}

#[test]
fn the_same_tile_twice_pairs_at_once_with_opposite_colours() {
    let mut pool = Pool::default();
    let a = guest(1);
    let b = guest(2);
    let s = added(pool.add(a.clone(), casual("3+2"), Color::Red).unwrap());
    assert_eq!(s.category, Category::Blitz);
    assert_eq!(pool.seeks().len(), 1);
    let (p, removed) = paired(pool.add(b.clone(), casual("3+2"), Color::Black).unwrap());
    assert_eq!(
        removed,
        vec![s.id.clone()],
        "the waiting seek leaves the list"
    );
    assert!(pool.seeks().is_empty(), "the new seek never waited");
    assert_eq!(p.seek, s.id);
    assert_eq!(p.tc, tc("3+2"));
    assert!(!p.rated);
    // Neither chose: the coin is the waiting player's colour.
    assert_eq!(p.players.black, a.who);
    assert_eq!(p.players.red, b.who);
}

#[test]
fn different_time_controls_or_modes_do_not_pair() {
    let mut pool = Pool::default();
    added(
        pool.add(account(1, "ann", 1500.0), casual("3+2"), Color::Red)
            .unwrap(),
    );
    added(
        pool.add(account(2, "bob", 1500.0), casual("5+3"), Color::Red)
            .unwrap(),
    );
    added(
        pool.add(account(3, "cid", 1500.0), rated("3+2"), Color::Red)
            .unwrap(),
    );
    let step = TimeControl {
        move_ms: Some(30_000),
        ..tc("3+2")
    };
    let with_step = Terms {
        tc: step,
        ..casual("3+2")
    };
    added(
        pool.add(account(4, "dan", 1500.0), with_step, Color::Red)
            .unwrap(),
    );
    assert_eq!(
        pool.seeks().len(),
        4,
        "3+2, 5+3, rated 3+2, 3+2 with 步时: four pools"
    );
    // The step-time variant pairs with its own kind only.
    let (p, _) = paired(
        pool.add(account(5, "eve", 1500.0), with_step, Color::Red)
            .unwrap(),
    );
    assert_eq!(p.tc.move_ms, Some(30_000));
    assert_eq!(pool.seeks().len(), 3);
}

#[test]
fn colour_choices_must_fit() {
    let mut pool = Pool::default();
    let red = Terms {
        color: Some(Color::Red),
        ..casual("5+3")
    };
    let s = added(pool.add(guest(1), red, Color::Black).unwrap());
    // Another who wants Red waits beside it.
    added(pool.add(guest(2), red, Color::Black).unwrap());
    // One who wants Black pairs with the oldest Red seek.
    let black = Terms {
        color: Some(Color::Black),
        ..casual("5+3")
    };
    let (p, _) = paired(pool.add(guest(3), black, Color::Black).unwrap());
    assert_eq!(p.seek, s.id);
    assert_eq!(p.players.red.conn, 1);
    assert_eq!(p.players.black.conn, 3);
    // One who does not mind gets the colour left over, whatever the coin says.
    let (p, _) = paired(pool.add(guest(4), casual("5+3"), Color::Black).unwrap());
    assert_eq!((p.players.red.conn, p.players.black.conn), (2, 4));
    // And a chooser who comes second gets his choice against a random seek.
    added(pool.add(guest(5), casual("5+3"), Color::Red).unwrap());
    let (p, _) = paired(pool.add(guest(6), black, Color::Red).unwrap());
    assert_eq!((p.players.red.conn, p.players.black.conn), (5, 6));
}

#[test]
fn rated_seeks_need_accounts() {
    let mut pool = Pool::default();
    let e = pool.add(guest(1), rated("3+2"), Color::Red).unwrap_err();
    assert!(matches!(e, SeekError::LoginRequired(_)), "{e:?}");
    let ranged = Terms {
        range: Some(200),
        ..casual("3+2")
    };
    let e = pool.add(guest(1), ranged, Color::Red).unwrap_err();
    assert!(matches!(e, SeekError::LoginRequired(_)), "{e:?}");
    assert!(pool.seeks().is_empty());
    let s = added(
        pool.add(account(2, "ann", 1500.0), rated("3+2"), Color::Red)
            .unwrap(),
    );
    // A guest cannot accept it, nor pair with it by seeking casual.
    let e = pool.accept(&guest(3), &s.id, Color::Red).unwrap_err();
    assert!(matches!(e, SeekError::LoginRequired(_)), "{e:?}");
    added(pool.add(guest(3), casual("3+2"), Color::Red).unwrap());
    assert_eq!(pool.seeks().len(), 2);
    // Another account can.
    let (p, _) = paired(
        pool.accept(&account(4, "bob", 1500.0), &s.id, Color::Red)
            .unwrap(),
    );
    assert!(p.rated);
    assert_eq!(p.players.red.user.as_deref(), Some("ann"));
    assert_eq!(p.players.black.user.as_deref(), Some("bob"));
}

#[test]
fn both_ranges_must_accept_the_other() {
    let mut pool = Pool::default();
    let within = |r: u32| Terms {
        range: Some(r),
        ..rated("10+5")
    };
    let s = added(
        pool.add(account(1, "ann", 1500.0), within(100), Color::Red)
            .unwrap(),
    );
    // 1700 is outside Ann's ±100: he waits beside her.
    added(
        pool.add(account(2, "bob", 1700.0), rated("10+5"), Color::Red)
            .unwrap(),
    );
    // 1580 is inside Ann's range, but Ann is outside his ±50: he waits too.
    added(
        pool.add(account(3, "cid", 1580.0), within(50), Color::Red)
            .unwrap(),
    );
    assert_eq!(pool.seeks().len(), 3);
    // Accepting outside the range is refused with the range.
    let e = pool
        .accept(&account(4, "dan", 1650.0), &s.id, Color::Red)
        .unwrap_err();
    assert_eq!(
        e,
        SeekError::OutOfRange {
            rating: 1650,
            category: "rapid",
            lo: 1400,
            hi: 1600
        }
    );
    // 1450 with ±100 fits Ann (1500 ± 100) both ways: paired with her, the oldest.
    let (p, _) = paired(
        pool.add(account(5, "eve", 1450.0), within(100), Color::Red)
            .unwrap(),
    );
    assert_eq!(p.seek, s.id);
    // A range on a casual seek keeps guests out as well.
    let c = added(
        pool.add(
            account(6, "fay", 1500.0),
            Terms {
                range: Some(300),
                ..casual("1+0")
            },
            Color::Red,
        )
        .unwrap(),
    );
    let e = pool.accept(&guest(7), &c.id, Color::Red).unwrap_err();
    assert!(matches!(e, SeekError::LoginRequired(_)), "{e:?}");
    added(pool.add(guest(7), casual("1+0"), Color::Red).unwrap());
}

#[test]
fn nobody_pairs_with_himself() {
    let mut pool = Pool::default();
    let ann = account(1, "ann", 1500.0);
    let s = added(pool.add(ann.clone(), casual("3+2"), Color::Red).unwrap());
    assert_eq!(
        pool.accept(&ann, &s.id, Color::Red),
        Err(SeekError::OwnSeek)
    );
    // The same account on another connection (another tab, another browser).
    let other_tab = Seeker {
        who: Identity {
            conn: 9,
            browser: None,
            ..ann.who.clone()
        },
        ..ann.clone()
    };
    assert_eq!(
        pool.accept(&other_tab, &s.id, Color::Red),
        Err(SeekError::OwnSeek)
    );
    // The same guest browser in two tabs.
    let g = guest(2);
    let g2 = Seeker {
        who: Identity {
            conn: 3,
            ..g.who.clone()
        },
        ..g.clone()
    };
    added(pool.add(g.clone(), casual("5+3"), Color::Red).unwrap());
    added(pool.add(g2.clone(), casual("5+3"), Color::Red).unwrap());
    // Seeking the same tile again does not pair with one's own seek either.
    added(pool.add(other_tab, casual("3+2"), Color::Red).unwrap());
    assert_eq!(pool.seeks().len(), 4);
}

#[test]
fn a_seek_is_taken_once() {
    let mut pool = Pool::default();
    let s = added(pool.add(guest(1), casual("3+2"), Color::Red).unwrap());
    let (p, removed) = paired(pool.accept(&guest(2), &s.id, Color::Black).unwrap());
    assert_eq!(removed, vec![s.id.clone()]);
    assert_eq!(
        (p.players.red.conn, p.players.black.conn),
        (2, 1),
        "the coin gave the owner Black"
    );
    // The second acceptor finds it gone, and nothing changes.
    let version = pool.version();
    assert_eq!(
        pool.accept(&guest(3), &s.id, Color::Red),
        Err(SeekError::NoSeek(s.id.clone()))
    );
    assert_eq!(pool.version(), version);
    assert!(pool.seeks().is_empty());
}

#[test]
fn pairing_withdraws_both_players_other_seeks() {
    let mut pool = Pool::default();
    let a = added(pool.add(guest(1), casual("3+2"), Color::Red).unwrap());
    let a2 = added(pool.add(guest(1), casual("10+5"), Color::Red).unwrap());
    let b2 = added(pool.add(guest(2), casual("30+0"), Color::Red).unwrap());
    let other = added(pool.add(guest(3), casual("1+0"), Color::Red).unwrap());
    let (_, mut removed) = paired(pool.accept(&guest(2), &a.id, Color::Red).unwrap());
    removed.sort();
    let mut want = vec![a.id, a2.id, b2.id];
    want.sort();
    assert_eq!(removed, want);
    assert_eq!(pool.seeks(), &[other]);
}

#[test]
fn cancel_only_ones_own() {
    let mut pool = Pool::default();
    let s = added(pool.add(guest(1), casual("3+2"), Color::Red).unwrap());
    assert_eq!(
        pool.cancel(&guest(2).who, &s.id),
        Err(SeekError::NoSeek(s.id.clone())),
        "another player's seek cannot be cancelled (nor told apart from a missing one)"
    );
    assert_eq!(
        pool.cancel(&guest(1).who, &s.id),
        Ok(vec![Effect::Removed(s.id.clone())])
    );
    assert!(pool.seeks().is_empty());
    assert!(pool.cancel(&guest(1).who, &s.id).is_err(), "twice");
    let hostile = "x".repeat(5000);
    match pool.cancel(&guest(1).who, &hostile) {
        Err(SeekError::NoSeek(shown)) => assert_eq!(shown.len(), 16),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_closed_connection_takes_its_seeks_along() {
    let mut pool = Pool::default();
    let a = added(pool.add(guest(1), casual("3+2"), Color::Red).unwrap());
    let b = added(pool.add(guest(1), casual("5+3"), Color::Red).unwrap());
    let c = added(pool.add(guest(2), casual("10+5"), Color::Red).unwrap());
    let before = pool.version();
    assert_eq!(
        pool.disconnect(1),
        vec![Effect::Removed(a.id), Effect::Removed(b.id)]
    );
    assert_eq!(pool.version(), before + 2);
    assert_eq!(pool.seeks(), &[c]);
    assert!(pool.disconnect(1).is_empty());
}

#[test]
fn limits_per_player_and_in_all() {
    let mut pool = Pool::new(PoolLimits {
        per_player: 3,
        total: 5,
    });
    for time in ["1+0", "3+0", "5+0"] {
        added(pool.add(guest(1), casual(time), Color::Red).unwrap());
    }
    assert_eq!(
        pool.add(guest(1), casual("10+0"), Color::Red),
        Err(SeekError::TooManySeeks(3))
    );
    // Another tab of the same browser counts as the same player.
    let tab = Seeker {
        who: Identity {
            conn: 7,
            ..guest(1).who
        },
        ratings: None,
    };
    assert_eq!(
        pool.add(tab, casual("10+0"), Color::Red),
        Err(SeekError::TooManySeeks(3))
    );
    // A seek that pairs at once holds nothing: allowed even at the limit.
    added(pool.add(guest(2), casual("15+10"), Color::Red).unwrap());
    paired(pool.add(guest(1), casual("15+10"), Color::Red).unwrap());
    for (conn, time) in [(3, "1+0"), (4, "2+0"), (5, "3+0"), (6, "4+0"), (7, "6+0")] {
        added(pool.add(guest(conn), casual(time), Color::Red).unwrap());
    }
    // Player 1's three seeks went with his pairing: five others wait now.
    assert_eq!(pool.seeks().len(), 5);
    assert_eq!(
        pool.add(guest(8), casual("7+0"), Color::Red),
        Err(SeekError::PoolFull)
    );
}
