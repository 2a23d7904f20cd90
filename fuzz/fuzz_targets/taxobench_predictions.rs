//! TaxoBench predictions paired with gold instances and scored with every metric: the input is
//! the data file and the predictions file, NUL-separated. Scores must be finite.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_app::score::similarity::{Memoized, textual};
use litnav_app::score::taxobench::{pair_files, score_pairs};
use litnav_eval::taxobench::{Options, Reading, Title, title_similarity};

fuzz_target!(|data: &[u8]| {
    let [gold, predicted] = litnav_fuzz::split(data, 2)[..] else { return };
    let gold = litnav_fuzz::file("data.jsonl", gold);
    let predicted = litnav_fuzz::file("predictions.jsonl", predicted);
    let Ok(paired) = pair_files(&gold, &predicted) else { return };
    let trees: Vec<_> = paired.pairs.iter().flat_map(|p| [&p.gold, &p.predicted]).collect();
    for (reading, rule) in
        [(Reading::Seed, textual as fn(&Title, &Title) -> f64), (Reading::Public, title_similarity)]
    {
        let similarity = Memoized::new(rule, &trees);
        let options = Options { reading, ..Options::default() };
        for (_, scores) in score_pairs(&paired.pairs, options, &similarity) {
            litnav_fuzz::assert_finite([
                ("us_ted", scores.us_ted),
                ("us_nted", scores.us_nted),
                ("nsr", scores.nsr),
                ("nsp", scores.nsp),
                ("soft_f1", scores.soft_f1),
            ]);
            litnav_fuzz::assert_finite(scores.sem_path.map(|v| ("sem_path", v)));
        }
    }
});
