//! Deal modes and commitments; save, reload, correct and re-pair; knockout rules.

mod common;

use common::{describe_round, event, pair, result};
use jieqi_core::{Color, Deal};
use jieqi_tournament::{
    DealMode, Format, GameResult, KnockoutConfig, PairOptions, SeededEntropy, TieBreakGame,
    Tournament, TournamentError,
};

fn field(n: usize) -> Vec<(String, u32)> {
    (0..n)
        .map(|i| (format!("p{:02}", i + 1), 2000 - i as u32 * 10))
        .collect()
}

fn swiss(n: usize, rounds: u32, mode: DealMode) -> Tournament {
    let f = field(n);
    let refs: Vec<(&str, u32)> = f.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = event("t", Format::Swiss { rounds }, &refs);
    t.settings.deal_mode = mode;
    t
}

fn finish_round(t: &mut Tournament, r: usize, res: &str) {
    for b in 1..=t.rounds[r - 1].games.len() {
        t.set_result(r, b, result(res), false).unwrap();
    }
}

#[test]
fn duplicate_mode_gives_every_board_the_same_committed_deal() {
    let mut t = swiss(10, 3, DealMode::Duplicate);
    for r in 1..=3 {
        pair(&mut t, format!("dup{r}").as_bytes());
        let games = &t.rounds[r - 1].games;
        let d = games[0].deal.unwrap();
        assert!(games.iter().all(|g| g.deal == Some(d)), "round {r}");
        assert_eq!(t.deals.len(), r, "one new deal per round");
        // Committed before play, secret until the round ends.
        assert!(t.deals[d].verifies());
        assert!(!t.deals[d].published);
        for b in 1..games.len() {
            t.set_result(r, b, result("1/2"), false).unwrap();
        }
        assert!(
            !t.deals[d].published,
            "published before the last board finished"
        );
        let last = t.rounds[r - 1].games.len();
        t.set_result(r, last, result("1-0"), false).unwrap();
        assert!(t.deals[d].published);
        let rec = &t.deals[d];
        let deal = Deal::parse(rec.deal.as_deref().unwrap()).unwrap();
        assert!(deal.verify_commitment(&rec.salt, rec.commitment.as_deref().unwrap()));
    }
    let distinct: std::collections::HashSet<_> = t.deals.iter().map(|d| d.deal.clone()).collect();
    assert_eq!(distinct.len(), 3);
}

#[test]
fn random_mode_gives_each_board_its_own_deal() {
    let mut t = swiss(8, 1, DealMode::Random);
    pair(&mut t, b"rnd");
    let deals: std::collections::HashSet<_> =
        t.rounds[0].games.iter().map(|g| g.deal.unwrap()).collect();
    assert_eq!(deals.len(), 4);
    let texts: std::collections::HashSet<_> = t.deals.iter().map(|d| d.deal.clone()).collect();
    assert_eq!(texts.len(), 4);
    assert!(t.deals.iter().all(|d| d.verifies()));
}

#[test]
fn organiser_deals_one_for_all_or_one_per_board() {
    let mut t = swiss(6, 2, DealMode::Organiser);
    let d1 = Deal::from_seed(b"one");
    let opts = PairOptions {
        deal_mode: None,
        organiser_deals: vec![d1, d1],
    };
    let err = t.pair(&opts, &mut SeededEntropy::new(b"o")).unwrap_err();
    assert_eq!(
        err,
        TournamentError::OrganiserDeals {
            boards: 3,
            given: 2
        }
    );
    assert!(t.rounds.is_empty() && t.deals.is_empty());
    let opts = PairOptions {
        deal_mode: None,
        organiser_deals: vec![d1],
    };
    t.pair(&opts, &mut SeededEntropy::new(b"o")).unwrap();
    for g in &t.rounds[0].games {
        assert_eq!(t.deals[g.deal.unwrap()].parsed(), Some(d1));
    }
    finish_round(&mut t, 1, "1-0");
    let per_board: Vec<Deal> = (0..3).map(|i| Deal::from_seed(&[i])).collect();
    let opts = PairOptions {
        deal_mode: None,
        organiser_deals: per_board.clone(),
    };
    t.pair(&opts, &mut SeededEntropy::new(b"o")).unwrap();
    for (i, g) in t.rounds[1].games.iter().enumerate() {
        assert_eq!(t.deals[g.deal.unwrap()].parsed(), Some(per_board[i]));
        assert!(t.deals[g.deal.unwrap()].verifies());
    }
}

#[test]
fn joint_deals_come_from_both_contributions() {
    let mut t = swiss(4, 1, DealMode::Joint);
    pair(&mut t, b"j");
    let d = t.rounds[0].games[0].deal.unwrap();
    assert!(t.deals[d].deal.is_none() && !t.deals[d].verifies());
    t.contribute(1, 1, Color::Red, "red secret").unwrap();
    assert!(matches!(
        t.contribute(1, 1, Color::Red, "again"),
        Err(TournamentError::Contribution { .. })
    ));
    t.contribute(1, 1, Color::Black, "black secret").unwrap();
    let want = Deal::joint(&[b"red secret", b"black secret"]);
    assert_eq!(t.deals[d].parsed(), Some(want));
    assert!(t.deals[d].verifies());
    // Board 2 is still waiting.
    assert!(t.deals[t.rounds[0].games[1].deal.unwrap()].deal.is_none());
    let mut r = swiss(4, 1, DealMode::Random);
    pair(&mut r, b"j");
    assert!(r.contribute(1, 1, Color::Red, "x").is_err());
    assert!(r.contribute(1, 9, Color::Red, "x").is_err());
}

#[test]
fn double_round_robin_duplicate_reuses_the_deal_with_colours_reversed() {
    let f = field(4);
    let refs: Vec<(&str, u32)> = f.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = event("drr", Format::RoundRobin { cycles: 2 }, &refs);
    t.settings.deal_mode = DealMode::Duplicate;
    assert_eq!(t.table_rounds_planned(), 6);
    for r in 1..=6 {
        pair(&mut t, format!("d{r}").as_bytes());
        finish_round(&mut t, r, "1/2");
        if r <= 3 {
            let d = t.rounds[r - 1].games[0].deal.unwrap();
            assert!(
                !t.deals[d].published,
                "round {r}'s deal is needed again in round {}",
                r + 3
            );
        }
    }
    for r in 1..=3 {
        let (a, b) = (&t.rounds[r - 1], &t.rounds[r + 2]);
        assert_eq!(a.games[0].deal, b.games[0].deal);
        let swapped: Vec<(u32, u32)> = a.games.iter().map(|g| (g.black, g.red)).collect();
        let second: Vec<(u32, u32)> = b.games.iter().map(|g| (g.red, g.black)).collect();
        assert_eq!(swapped, second);
    }
    assert_eq!(t.deals.len(), 3);
    assert!(t.deals.iter().all(|d| d.published && d.verifies()));
    // Everyone met everyone twice, once with each colour.
    assert!(t.is_finished());
    assert!(matches!(pair_err(&mut t), TournamentError::Finished));
}

fn pair_err(t: &mut Tournament) -> TournamentError {
    t.pair(&PairOptions::default(), &mut SeededEntropy::new(b"e"))
        .unwrap_err()
}

#[test]
fn save_reload_correct_and_repair() {
    let mut t = swiss(7, 3, DealMode::Random);
    pair(&mut t, b"a");
    finish_round(&mut t, 1, "1-0");
    pair(&mut t, b"b");
    // Saved mid-round and reloaded: identical.
    let text = t.to_json();
    let mut back = Tournament::from_json(&text).unwrap();
    assert_eq!(back, t);
    assert_eq!(back.to_json(), text);

    // The next round cannot be paired while this one is open.
    assert!(matches!(
        pair_err(&mut back),
        TournamentError::RoundIncomplete { round: 2, .. }
    ));

    // Re-pair a round that has not started: same pairing (deterministic), new deals.
    let before = describe_round(&back, 2);
    let old_deals = back.deals.clone();
    assert_eq!(back.unpair().unwrap(), 2);
    assert_eq!(back.rounds.len(), 1);
    assert_eq!(back.deals.len(), 3, "round 2's deals are withdrawn");
    pair(&mut back, b"another draw");
    assert_eq!(describe_round(&back, 2), before);
    assert_ne!(back.deals[3..], old_deals[3..]);

    // A correction in round 1 changes the standings and the re-pairing of round 2.
    let g = back.rounds[0].games[0].clone();
    let points =
        |t: &Tournament, p: u32| t.standings().iter().find(|r| r.player == p).unwrap().points;
    assert_eq!((points(&back, g.red), points(&back, g.black)), (1.0, 0.0));
    let err = back.set_result(1, 1, result("0-1"), false).unwrap_err();
    assert!(matches!(
        err,
        TournamentError::AlreadyHasResult { old: "1-0", .. }
    ));
    back.set_result(1, 1, result("0-1"), true).unwrap();
    assert_eq!((points(&back, g.red), points(&back, g.black)), (0.0, 1.0));
    back.unpair().unwrap();
    pair(&mut back, b"c");
    assert_ne!(describe_round(&back, 2), before);

    // Started rounds are not re-paired.
    back.set_result(2, 1, result("1/2"), false).unwrap();
    assert_eq!(back.unpair().unwrap_err(), TournamentError::RoundStarted(2));
    let reloaded = Tournament::from_json(&back.to_json()).unwrap();
    assert_eq!(reloaded.standings(), back.standings());
}

#[test]
fn damaged_files_are_refused_with_a_reason() {
    let mut t = swiss(4, 2, DealMode::Random);
    pair(&mut t, b"a");
    let good = t.to_json();
    assert!(matches!(
        Tournament::from_json("{"),
        Err(TournamentError::Parse(_))
    ));
    assert!(matches!(
        Tournament::from_json("[]"),
        Err(TournamentError::Parse(_))
    ));
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["rounds"][0]["games"][0]["red"] = 99.into();
    assert!(matches!(
        Tournament::from_json(&v.to_string()),
        Err(TournamentError::Invalid(_))
    ));
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["deals"][0]["deal"] = "RNBAABNRCCPPPPP/rnbaabnrccpppp".into();
    assert!(matches!(
        Tournament::from_json(&v.to_string()),
        Err(TournamentError::Invalid(_))
    ));
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["rounds"][0]["games"][1]["deal"] = 7.into();
    assert!(Tournament::from_json(&v.to_string()).is_err());
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["players"][1]["name"] = v["players"][0]["name"].clone();
    assert!(Tournament::from_json(&v.to_string()).is_err());
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["bracket"] = serde_json::json!({"entrants": [0, 1], "stages": []});
    assert!(matches!(
        Tournament::from_json(&v.to_string()),
        Err(TournamentError::Invalid(_))
    ));
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["rounds"][0]["games"][0]["result"] = "2-0".into();
    assert!(matches!(
        Tournament::from_json(&v.to_string()),
        Err(TournamentError::Parse(_))
    ));
}

fn knockout(n: usize, cfg: KnockoutConfig) -> Tournament {
    let f = field(n);
    let refs: Vec<(&str, u32)> = f.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    event("ko", Format::Knockout(cfg), &refs)
}

#[test]
fn knockout_with_byes_and_places() {
    // Six players: seeds 1 and 2 have byes; 4–5 and 3–6 play (bracket 1 8 4 5 2 7 3 6).
    let mut t = knockout(
        6,
        KnockoutConfig {
            best_of: 1,
            tie_break: TieBreakGame::HigherSeed,
            third_place: false,
        },
    );
    pair(&mut t, b"k");
    assert_eq!(describe_round(&t, 1), ["p04-p05", "p03-p06"]);
    t.set_result(1, 1, result("0-1"), false).unwrap(); // p05 beats p04
    t.set_result(1, 2, result("1/2"), false).unwrap(); // tie: the higher seed p03
    pair(&mut t, b"k");
    assert_eq!(describe_round(&t, 2), ["p01-p05", "p02-p03"]);
    // Adding players once the bracket is drawn is refused.
    assert!(matches!(
        t.add_player(jieqi_tournament::Player::named("late")),
        Err(TournamentError::FieldFixed(_))
    ));
    finish_round(&mut t, 2, "0-1");
    pair(&mut t, b"k");
    assert_eq!(describe_round(&t, 3), ["p03-p05"]);
    t.set_result(3, 1, result("1-0"), false).unwrap();
    assert!(t.is_finished());
    let places: Vec<(Option<u32>, String)> = t
        .places()
        .iter()
        .map(|p| (p.place, t.players[p.player as usize].name.clone()))
        .collect();
    let want = [
        (1, "p03"),
        (2, "p05"),
        (3, "p01"),
        (4, "p02"),
        (5, "p04"),
        (6, "p06"),
    ];
    assert_eq!(
        places,
        want.iter()
            .map(|(a, b)| (Some(*a), b.to_string()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn tie_break_games() {
    // Best of two, tied 1–1: an armageddon game 3 where a draw sends Black through.
    let mut t = knockout(
        2,
        KnockoutConfig {
            best_of: 2,
            tie_break: TieBreakGame::Armageddon,
            third_place: false,
        },
    );
    pair(&mut t, b"a");
    t.set_result(1, 1, result("1-0"), false).unwrap();
    pair(&mut t, b"a");
    assert_eq!(describe_round(&t, 2), ["p02-p01"]);
    t.set_result(2, 1, result("1-0"), false).unwrap();
    pair(&mut t, b"a");
    assert_eq!(describe_round(&t, 3), ["p01-p02"]);
    let st = t.match_state(0, 0);
    assert_eq!((st.high_points, st.low_points, st.winner), (2, 2, None));
    t.set_result(3, 1, result("1/2"), false).unwrap();
    assert_eq!(
        t.match_state(0, 0).winner,
        Some(t.find_player("p02").unwrap())
    );
    assert!(t.is_finished());

    // Sudden death: draws continue with alternating colours until a decisive game.
    let mut t = knockout(
        2,
        KnockoutConfig {
            best_of: 1,
            tie_break: TieBreakGame::SuddenDeath,
            third_place: false,
        },
    );
    for (i, r) in ["1/2", "1/2", "1/2", "0-1"].iter().enumerate() {
        pair(&mut t, b"s");
        let red = if i % 2 == 0 { "p01" } else { "p02" };
        assert_eq!(t.rounds[i].games[0].red, t.find_player(red).unwrap());
        t.set_result(i + 1, 1, result(r), false).unwrap();
    }
    // Game 4: p02 Red, p01 Black wins.
    assert_eq!(
        t.match_state(0, 0).winner,
        Some(t.find_player("p01").unwrap())
    );
    assert!(matches!(pair_err(&mut t), TournamentError::Finished));

    // Best of three, 2–0: no third game; forfeits count as wins.
    let mut t = knockout(
        2,
        KnockoutConfig {
            best_of: 3,
            tie_break: TieBreakGame::Armageddon,
            third_place: false,
        },
    );
    pair(&mut t, b"x");
    t.set_result(1, 1, GameResult::BlackForfeitWin, false)
        .unwrap();
    pair(&mut t, b"x");
    t.set_result(2, 1, result("1-0"), false).unwrap();
    assert_eq!(
        t.match_state(0, 0).winner,
        Some(t.find_player("p02").unwrap())
    );
    assert!(t.is_finished());
    // A correction of the last knockout round is allowed, earlier ones are not.
    assert!(matches!(
        t.set_result(1, 1, result("1-0"), true),
        Err(TournamentError::CorrectionRefused { .. })
    ));
    t.set_result(2, 1, result("0-1"), true).unwrap();
    assert_eq!(t.match_state(0, 0).next.map(|n| n.number), Some(3));
}

#[test]
fn swiss_results_are_frozen_once_the_knockout_is_seeded() {
    let f = field(8);
    let refs: Vec<(&str, u32)> = f.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = event(
        "sk",
        Format::SwissKnockout {
            swiss_rounds: 1,
            qualifiers: 4,
            knockout: KnockoutConfig {
                best_of: 1,
                tie_break: TieBreakGame::HigherSeed,
                third_place: true,
            },
        },
        &refs,
    );
    pair(&mut t, b"1");
    finish_round(&mut t, 1, "0-1");
    pair(&mut t, b"2");
    assert!(t.bracket.is_some());
    assert!(matches!(
        t.set_result(1, 1, result("1-0"), true),
        Err(TournamentError::CorrectionRefused { .. })
    ));
    // Unpairing the first knockout round drops the bracket, so corrections are
    // possible again and the bracket is re-seeded.
    t.unpair().unwrap();
    assert!(t.bracket.is_none());
    t.set_result(1, 1, result("1-0"), true).unwrap();
    pair(&mut t, b"2");
    let b = t.bracket.clone().unwrap();
    let top4: Vec<u32> = t.standings().iter().take(4).map(|r| r.player).collect();
    assert_eq!(b.entrants, top4);
    finish_round(&mut t, 2, "1-0");
    pair(&mut t, b"3");
    // Final and third-place match in the same round.
    assert_eq!(t.rounds[2].games.len(), 2);
    finish_round(&mut t, 3, "0-1");
    assert!(t.is_finished());
    let places: Vec<Option<u32>> = t.places().iter().map(|p| p.place).collect();
    assert_eq!(places, (1..=8).map(Some).collect::<Vec<_>>());
}
