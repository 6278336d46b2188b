//! Issue 18: rounds have names, tied players share a place, no tie-break is "-0".

mod common;

use common::{event, pair, result};
use jieqi_tournament::{Format, KnockoutConfig, RoundName, TieBreakGame};

#[test]
fn tied_players_share_the_place_and_no_tiebreak_is_negative_zero() {
    let mut t = event(
        "Tie",
        Format::Swiss { rounds: 1 },
        &[("A", 2000), ("B", 1900)],
    );
    pair(&mut t, b"1");
    // Paired, no result: every tie-break is a plain zero (the sum of nothing is -0.0).
    for row in t.standings() {
        for v in row.tiebreaks.iter().flatten() {
            assert!(v.is_sign_positive(), "tie-break {v} of {row:?}");
        }
    }
    t.set_result(1, 1, result("1/2"), false).unwrap();
    let rows = t.standings();
    assert_eq!(
        rows.iter().map(|r| (r.rank, r.shared)).collect::<Vec<_>>(),
        [(1, true), (1, true)]
    );
    assert_eq!(
        t.places().iter().map(|p| p.place).collect::<Vec<_>>(),
        [Some(1), Some(1)]
    );
    assert!(!t.standings_csv().contains("-0"), "{}", t.standings_csv());
    assert_eq!(t.round_name(1), RoundName::Table(1));
    assert_eq!(t.round_name(1).to_string(), "Round 1");
    assert_eq!(t.round_name(1).chinese(), "第 1 轮");
}

#[test]
fn knockout_rounds_are_named_by_stage() {
    let mut t = event(
        "Cup",
        Format::Knockout(KnockoutConfig {
            best_of: 1,
            tie_break: TieBreakGame::HigherSeed,
            third_place: false,
        }),
        &[
            ("A", 2400),
            ("B", 2300),
            ("C", 2200),
            ("D", 2100),
            ("E", 2000),
            ("F", 1900),
            ("G", 1800),
            ("H", 1700),
        ],
    );
    let names = |t: &jieqi_tournament::Tournament, r: usize| {
        (t.round_name(r).to_string(), t.round_name(r).chinese())
    };
    pair(&mut t, b"1");
    assert_eq!(
        names(&t, 1),
        ("Quarter-final".into(), "四分之一决赛".into())
    );
    for b in 1..=4 {
        t.set_result(1, b, result("1-0"), false).unwrap();
    }
    pair(&mut t, b"2");
    assert_eq!(names(&t, 2), ("Semi-final".into(), "半决赛".into()));
    for b in 1..=2 {
        t.set_result(2, b, result("1-0"), false).unwrap();
    }
    pair(&mut t, b"3");
    assert_eq!(names(&t, 3), ("Final".into(), "决赛".into()));
    assert_eq!(RoundName::Stage(8).to_string(), "Last 16");
    assert_eq!(RoundName::Stage(8).chinese(), "16 强赛");
}
