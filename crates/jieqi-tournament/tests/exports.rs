//! Public exports never leak an unpublished deal, and show what they claim to.

mod common;

use common::{event, pair, result};
use jieqi_tournament::{DealMode, Format, KnockoutConfig, TieBreakGame};

#[test]
fn exports_hide_secret_deals_and_show_published_ones() {
    let mut t = event(
        "Cup <&> \"2011\"",
        Format::SwissKnockout {
            swiss_rounds: 2,
            qualifiers: 2,
            knockout: KnockoutConfig {
                best_of: 1,
                tie_break: TieBreakGame::HigherSeed,
                third_place: false,
            },
        },
        &[
            ("符传咏", 2000),
            ("洪清谱", 1900),
            ("a,b", 1800),
            ("<script>", 1700),
            ("E", 1600),
        ],
    );
    t.settings.deal_mode = DealMode::Duplicate;
    pair(&mut t, b"1");
    let secret = t.deals[0].deal.clone().unwrap();
    let salt = t.deals[0].salt.clone();
    let commitment = t.deals[0].commitment.clone().unwrap();
    for text in [
        t.standings_html(),
        t.public_json().to_string(),
        t.games_csv(),
        t.standings_csv(),
    ] {
        assert!(
            !text.contains(&secret) && !text.contains(&salt),
            "secret deal leaked"
        );
    }
    assert!(t.standings_html().contains(&commitment));
    assert!(t.games_csv().contains(&commitment));
    for b in 1..=2 {
        t.set_result(1, b, result("1-0"), false).unwrap();
    }
    let html = t.standings_html();
    assert!(html.contains(&secret) && html.contains(&salt));
    assert!(t.public_json()["rounds"][0]["games"][0]["deal"]["deal"] == secret.as_str());
    // Escaping.
    assert!(html.contains("Cup &lt;&amp;&gt; &quot;2011&quot;"));
    assert!(html.contains("&lt;script&gt;") && !html.contains("<script>"));
    assert!(t.standings_csv().contains("\"a,b\""));
    // Finish: Swiss round 2, then the final.
    pair(&mut t, b"2");
    for b in 1..=2 {
        t.set_result(2, b, result("1/2"), false).unwrap();
    }
    pair(&mut t, b"3");
    t.set_result(3, 1, result("0-1"), false).unwrap();
    assert!(t.is_finished());
    let html = t.standings_html();
    assert!(html.contains("Crosstable") && html.contains("Knockout") && html.contains("Final"));
    assert!(html.contains("Places"));
    let json = t.public_json();
    assert_eq!(json["finished"], true);
    assert_eq!(json["places"].as_array().unwrap().len(), 5);
    assert_eq!(json["standings"].as_array().unwrap().len(), 5);
    assert_eq!(json["bracket"]["stages"][0]["matches"][0]["games"], 1);
    let champion = json["places"][0]["name"].as_str().unwrap().to_string();
    assert_eq!(
        json["bracket"]["stages"][0]["matches"][0]["winner"],
        champion.as_str()
    );
    let csv = t.standings_csv();
    assert_eq!(csv.lines().count(), 6);
    assert!(csv.starts_with("rank,start,name,rating,points,BH,MBH,SB,W,DE,played,place"));
    assert_eq!(t.games_csv().lines().count(), 1 + 2 + 1 + 2 + 1 + 1);
}
