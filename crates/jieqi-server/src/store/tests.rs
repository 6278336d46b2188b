//! The store-level tests, run against each store: SQLite always, PostgreSQL when
//! `JIEQI_TEST_PG` names a database (see [`super::test_database`]).

use jieqi_core::{ByColor, Color, Outcome, Reason};

use super::{
    FinishRecord, GameEnd, GameFilter, ListKind, MoveRecord, NewGame, PlayerResult, PostgresStore,
    SeatRecord, SqliteStore, Store, StoreError, SyncMode, Write,
};
use crate::chat::{ChatLine, ChatRoom};
use crate::rating::{Category, Rating};

/// Where a test's store lives, so that it can be opened again (a restart).
enum Place {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Place {
    async fn open(&self) -> Box<dyn Store> {
        match self {
            Place::Sqlite(dir) => {
                Box::new(SqliteStore::open(&dir.path().join("t.db"), SyncMode::Normal).unwrap())
            }
            Place::Postgres(url) => Box::new(PostgresStore::open(url).await.unwrap()),
        }
    }
}

/// Runs each named test on a SQLite file and on a fresh PostgreSQL schema.
macro_rules! on_both_stores {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $test() {
                    super::$test(super::Place::Sqlite(tempfile::tempdir().unwrap())).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $test() {
                    if let Some(url) = super::super::test_database(stringify!($test)).await {
                        super::$test(super::Place::Postgres(url)).await;
                    }
                }
            )*
        }
    };
}

on_both_stores!(
    a_rated_end_changes_ratings_once_also_across_a_restart,
    a_refused_write_in_a_group_fails_alone,
    round_trip_and_ordering_guard,
    an_aborted_rated_game_changes_no_rating_and_counts_in_no_result,
    chat_lines_and_mutes_are_stored_with_the_game,
    takebacks_and_an_accounts_live_games,
);

pub(super) fn new_game(id: &str) -> NewGame {
    NewGame {
        id: id.into(),
        created_ms: 1000,
        deal: "RNBAABNRCCPPPPP/rnbaabnrccppppp".into(),
        salt: "00".into(),
        commitment: "sha256:x".into(),
        rules: "standard".into(),
        captured_identity: "capturer".into(),
        time: "10+5".into(),
        move_time_s: Some(60),
        seats: ByColor {
            red: SeatRecord {
                engine_level: None,
                token: "a".into(),
                joined: false,
                user: None,
            },
            black: SeatRecord {
                engine_level: Some(3),
                token: "b".into(),
                joined: true,
                user: None,
            },
        },
        invite: None,
        invite_token: None,
        listed: false,
        rematch_of: None,
        rated: false,
    }
}

pub(super) async fn user(s: &dyn Store, name: &str) {
    s.write(Write::CreateUser(Box::new(super::NewUser {
        name: name.into(),
        key: name.to_lowercase(),
        password: "$argon2id$…".into(),
        created_ms: 1,
    })))
    .await
    .unwrap();
}

/// A rated 3+2 (blitz) game between two accounts.
pub(super) fn rated(id: &str, red: &str, black: &str) -> NewGame {
    let mut g = new_game(id);
    g.time = "3+2".into();
    g.rated = true;
    g.seats.black.engine_level = None;
    g.seats.red.user = Some(red.into());
    g.seats.black.user = Some(black.into());
    g
}

pub(super) fn mv(n: u32) -> MoveRecord {
    MoveRecord {
        n,
        uci: "h2e2".into(),
        red_ms: 1,
        black_ms: 2,
        at_ms: 3,
    }
}

/// A store holding game `id` with `moves` (plain coordinate moves) and `end`.
pub(super) async fn finished(s: &dyn Store, id: &str, moves: &[&str], end: Outcome) {
    s.write(Write::Create(Box::new(new_game(id))))
        .await
        .unwrap();
    for (n, m) in (1..).zip(moves) {
        s.write(Write::Move {
            id: id.into(),
            mv: MoveRecord {
                uci: m.to_string(),
                ..mv(n)
            },
            finish: None,
        })
        .await
        .unwrap();
    }
    let finish = FinishRecord {
        end: GameEnd::Result(end),
        at_ms: 9,
    };
    s.write(Write::Finish {
        id: id.into(),
        finish,
    })
    .await
    .unwrap();
}

async fn a_rated_end_changes_ratings_once_also_across_a_restart(place: Place) {
    let s = place.open().await;
    user(&*s, "Alice").await;
    user(&*s, "Bob").await;
    // Names are unique whatever their case.
    let clash = s
        .write(Write::CreateUser(Box::new(super::NewUser {
            name: "ALICE".into(),
            key: "alice".into(),
            password: "x".into(),
            created_ms: 2,
        })))
        .await;
    assert!(matches!(clash, Err(StoreError::Taken)), "{clash:?}");
    s.write(Write::Create(Box::new(rated("r1", "Alice", "Bob"))))
        .await
        .unwrap();
    let mut casual = rated("c1", "Bob", "Alice");
    casual.rated = false;
    s.write(Write::Create(Box::new(casual))).await.unwrap();
    let win = |winner| FinishRecord {
        end: GameEnd::Result(Outcome::Win {
            winner,
            reason: Reason::Resignation,
        }),
        at_ms: 5000,
    };
    s.write(Write::Finish {
        id: "r1".into(),
        finish: win(Color::Red),
    })
    .await
    .unwrap();
    s.write(Write::Finish {
        id: "c1".into(),
        finish: win(Color::Red),
    })
    .await
    .unwrap();
    let alice = s.ratings("Alice").await.unwrap();
    assert_eq!(alice.len(), 1);
    assert_eq!(alice[0].category, Category::Blitz);
    assert_eq!(alice[0].games, 1, "the casual game does not count");
    assert!(alice[0].rating.rating > 1500.0);
    let bob = s.ratings("Bob").await.unwrap();
    assert!(bob[0].rating.rating < 1500.0);
    // A second end of the same game is refused, and changes nothing.
    assert!(
        s.write(Write::Finish {
            id: "r1".into(),
            finish: win(Color::Black),
        })
        .await
        .is_err()
    );
    drop(s);
    let s = place.open().await;
    assert_eq!(s.ratings("Alice").await.unwrap(), alice);
    let h = s.rating_history("Alice").await.unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].game, "r1");
    assert_eq!(h[0].before, Rating::default());
    assert_eq!(h[0].after, alice[0].rating);
    // Alice: a rated win as Red, a casual loss as Black.
    let (games, total) = s
        .history("Alice", GameFilter::default(), 0, 10)
        .await
        .unwrap();
    assert_eq!(total, 2);
    let r1 = games.iter().find(|g| g.summary.id == "r1").unwrap();
    assert_eq!((r1.color, r1.rated), (Color::Red, true));
    assert_eq!(r1.rating.unwrap().1, alice[0].rating);
    let c1 = games.iter().find(|g| g.summary.id == "c1").unwrap();
    assert_eq!((c1.color, c1.rated, c1.rating), (Color::Black, false, None));
    let losses = GameFilter {
        result: Some(PlayerResult::Loss),
        ..GameFilter::default()
    };
    let (games, total) = s.history("Alice", losses, 0, 10).await.unwrap();
    assert_eq!((total, games[0].summary.id.as_str()), (1, "c1"));
    let none = GameFilter {
        opponent: Some("Carol".into()),
        ..GameFilter::default()
    };
    assert_eq!(s.history("Alice", none, 0, 10).await.unwrap().1, 0);
    let later = GameFilter {
        from_ms: Some(6000),
        ..GameFilter::default()
    };
    assert_eq!(s.history("Alice", later, 0, 10).await.unwrap().1, 0);
    let tallies = s.tallies("Alice").await.unwrap();
    assert_eq!(tallies.len(), 2, "{tallies:?}");
    assert_eq!((tallies[0].rated, tallies[0].wins), (true, 1));
    assert_eq!((tallies[1].rated, tallies[1].losses), (false, 1));
}

/// Writes queued together are committed together; a refused one among them fails
/// alone (the batch is redone with savepoints) and the others are stored.
async fn a_refused_write_in_a_group_fails_alone(place: Place) {
    let s = place.open().await;
    s.write(Write::Create(Box::new(new_game("g1"))))
        .await
        .unwrap();
    s.write(Write::Create(Box::new(new_game("g2"))))
        .await
        .unwrap();
    let m = |id: &str, n: u32| Write::Move {
        id: id.into(),
        mv: mv(n),
        finish: None,
    };
    // Sent before any is awaited, so that the writer finds them queued together.
    let pending = vec![
        s.write(m("g1", 1)),
        s.write(m("g2", 1)),
        s.write(m("g1", 3)),
        s.write(Write::Create(Box::new(new_game("g1")))),
        s.write(m("g1", 2)),
        s.write(m("nope", 1)),
        s.write(m("g2", 2)),
    ];
    let mut results = Vec::new();
    for f in pending {
        results.push(f.await.is_ok());
    }
    assert_eq!(results, [true, true, false, false, true, false, true]);
    for id in ["g1", "g2"] {
        let g = s.load(id).await.unwrap().unwrap();
        assert_eq!(g.moves, vec![mv(1), mv(2)], "{id}");
    }
    assert!(s.load("nope").await.unwrap().is_none());
}

async fn round_trip_and_ordering_guard(place: Place) {
    let s = place.open().await;
    s.write(Write::Create(Box::new(new_game("g1"))))
        .await
        .unwrap();
    assert!(
        s.write(Write::Create(Box::new(new_game("g1"))))
            .await
            .is_err()
    );
    s.write(Write::Move {
        id: "g1".into(),
        mv: mv(1),
        finish: None,
    })
    .await
    .unwrap();
    // A gap or a repeat is refused, and does not disturb the stored game.
    assert!(
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(3),
            finish: None
        })
        .await
        .is_err()
    );
    assert!(
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(1),
            finish: None
        })
        .await
        .is_err()
    );
    s.write(Write::Move {
        id: "g1".into(),
        mv: mv(2),
        finish: None,
    })
    .await
    .unwrap();
    let g = s.load("g1").await.unwrap().unwrap();
    assert_eq!(g.new, new_game("g1"));
    assert_eq!(g.moves, vec![mv(1), mv(2)]);
    assert_eq!(s.unfinished().await.unwrap(), vec!["g1".to_string()]);
    // Plies and the last change of a game in play come from its moves.
    let sum = s.summary("g1").await.unwrap().unwrap();
    assert_eq!((sum.plies, sum.updated_ms), (2, 1000));
    s.write(Write::Seats {
        id: "g1".into(),
        joined: ByColor {
            red: true,
            black: true,
        },
        users: ByColor::default(),
        invite_claimed: false,
        started_ms: Some(1500),
    })
    .await
    .unwrap();
    let live = s.list(ListKind::Live, 10).await.unwrap();
    assert_eq!((live.len(), live[0].plies), (1, 2));
    let f = FinishRecord {
        end: GameEnd::Result(Outcome::Win {
            winner: Color::Black,
            reason: Reason::Resignation,
        }),
        at_ms: 9,
    };
    s.write(Write::Finish {
        id: "g1".into(),
        finish: f,
    })
    .await
    .unwrap();
    assert!(
        s.write(Write::Finish {
            id: "g1".into(),
            finish: f
        })
        .await
        .is_err()
    );
    assert!(
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(3),
            finish: None
        })
        .await
        .is_err()
    );
    let g = s.load("g1").await.unwrap().unwrap();
    assert_eq!(g.finish, Some(f));
    assert!(s.unfinished().await.unwrap().is_empty());
    let recent = s.list(ListKind::Recent, 10).await.unwrap();
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].plies, 2);
    assert!(s.load("nope").await.unwrap().is_none());
}

async fn an_aborted_rated_game_changes_no_rating_and_counts_in_no_result(place: Place) {
    let s = place.open().await;
    user(&*s, "Alice").await;
    user(&*s, "Bob").await;
    s.write(Write::Create(Box::new(rated("a1", "Alice", "Bob"))))
        .await
        .unwrap();
    let aborted = FinishRecord {
        end: GameEnd::Aborted,
        at_ms: 7000,
    };
    s.write(Write::Finish {
        id: "a1".into(),
        finish: aborted,
    })
    .await
    .unwrap();
    assert!(s.ratings("Alice").await.unwrap().is_empty());
    assert!(s.rating_history("Bob").await.unwrap().is_empty());
    assert!(s.tallies("Alice").await.unwrap().is_empty());
    assert_eq!(s.load("a1").await.unwrap().unwrap().finish, Some(aborted));
    let recent = s.list(ListKind::Recent, 10).await.unwrap();
    assert_eq!(recent[0].finish, Some(aborted), "listed as aborted");
    let (games, total) = s
        .history("Alice", GameFilter::default(), 0, 20)
        .await
        .unwrap();
    assert_eq!((games.len(), total), (1, 1), "in the history, as aborted");
    let wins = GameFilter {
        result: Some(PlayerResult::Win),
        ..GameFilter::default()
    };
    assert_eq!(s.history("Alice", wins, 0, 20).await.unwrap().1, 0);
    assert!(s.unfinished().await.unwrap().is_empty());
}

async fn chat_lines_and_mutes_are_stored_with_the_game(place: Place) {
    let s = place.open().await;
    s.write(Write::Create(Box::new(new_game("g1"))))
        .await
        .unwrap();
    let line = |n, room, color, text: &str| ChatLine {
        n,
        room,
        color,
        user: None,
        text: text.into(),
        at_ms: 100 + u64::from(n),
    };
    let lines = vec![
        line(1, ChatRoom::Players, Some(Color::Red), "<b>hi</b>"),
        line(2, ChatRoom::Spectators, None, "nice"),
    ];
    for l in &lines {
        s.write(Write::Chat {
            id: "g1".into(),
            line: l.clone(),
        })
        .await
        .unwrap();
    }
    for muted in [true, true, false, true] {
        s.write(Write::ChatMute {
            id: "g1".into(),
            color: Color::Black,
            muted,
        })
        .await
        .unwrap();
    }
    // A line numbered twice is refused.
    assert!(
        s.write(Write::Chat {
            id: "g1".into(),
            line: lines[0].clone(),
        })
        .await
        .is_err()
    );
    drop(s);
    let s = place.open().await;
    let g = s.load("g1").await.unwrap().unwrap();
    assert_eq!(g.chat, lines);
    assert_eq!(
        g.mutes,
        ByColor {
            red: false,
            black: true
        }
    );
}

async fn takebacks_and_an_accounts_live_games(place: Place) {
    let s = place.open().await;
    user(&*s, "Alice").await;
    user(&*s, "Bob").await;
    s.write(Write::Create(Box::new(rated("g1", "Alice", "Bob"))))
        .await
        .unwrap();
    for n in 1..=4 {
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(n),
            finish: None,
        })
        .await
        .unwrap();
    }
    // A standing request survives a restart; a takeback drops the plies after `keep`.
    s.write(Write::TakebackOffer {
        id: "g1".into(),
        offer: Some((Color::Black, 4)),
    })
    .await
    .unwrap();
    drop(s);
    let s = place.open().await;
    let g = s.load("g1").await.unwrap().unwrap();
    assert_eq!(g.takeback, Some((Color::Black, 4)));
    s.write(Write::Takeback {
        id: "g1".into(),
        keep: 2,
    })
    .await
    .unwrap();
    let g = s.load("g1").await.unwrap().unwrap();
    assert_eq!(g.takeback, None);
    assert_eq!(g.moves.iter().map(|m| m.n).collect::<Vec<_>>(), [1, 2]);

    // Each account finds its unfinished game, in its own colour; nobody else does.
    let alice = s.live_games("Alice", 10).await.unwrap();
    assert_eq!(alice.len(), 1);
    assert_eq!((alice[0].0.id.as_str(), alice[0].1), ("g1", Color::Red));
    let bob = s.live_games("Bob", 10).await.unwrap();
    assert_eq!(bob[0].1, Color::Black);
    assert!(s.live_games("Carol", 10).await.unwrap().is_empty());

    // Once over, no takeback and no live game.
    s.write(Write::Finish {
        id: "g1".into(),
        finish: FinishRecord {
            end: GameEnd::Result(Outcome::Draw {
                reason: Reason::Agreement,
            }),
            at_ms: 9,
        },
    })
    .await
    .unwrap();
    assert!(
        s.write(Write::Takeback {
            id: "g1".into(),
            keep: 1,
        })
        .await
        .is_err()
    );
    assert!(s.live_games("Alice", 10).await.unwrap().is_empty());
}
