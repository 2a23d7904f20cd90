//! Choosing a benchmark's setting with one topic held out: each topic is scored with the
//! setting chosen on the other topics, so no topic's own answers pick the setting it is scored
//! with. Suites keep a table of scores with one row per setting and one column per topic.

/// The table's rows without column `held` (or whole, with `None`): per setting, its scores on
/// the other topics.
pub fn without<T>(table: &[Vec<T>], held: Option<usize>) -> Vec<Vec<&T>> {
    table.iter().map(|row| row.iter().enumerate().filter(|(t, _)| Some(*t) != held).map(|(_, s)| s).collect()).collect()
}

/// For each topic (a column of `table`), the setting (a row index) `choose` picks from the
/// rows without that topic.
pub fn choices<T>(table: &[Vec<T>], choose: impl Fn(&[Vec<&T>]) -> usize) -> Vec<usize> {
    let topics = table.first().map_or(0, Vec::len);
    (0..topics).map(|held| choose(&without(table, Some(held)))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_topic_gets_the_setting_best_on_the_others() {
        // Setting 1 is best on topics 0 and 1; setting 0 only on topic 2, by a wide margin.
        let table = vec![vec![0.1, 0.1, 0.9], vec![0.5, 0.5, 0.0]];
        let best = |rows: &[Vec<&f64>]| {
            let mean = |row: &Vec<&f64>| row.iter().copied().sum::<f64>() / row.len() as f64;
            (0..rows.len()).fold(0, |best, s| if mean(&rows[s]) > mean(&rows[best]) { s } else { best })
        };
        // Held out 0: setting 0 has 0.5 on the others, setting 1 0.25, and so on.
        assert_eq!(choices(&table, best), [0, 0, 1]);
        assert_eq!(best(&without(&table, None)), 0);
        assert_eq!(without(&table, Some(1)), [vec![&0.1, &0.9], vec![&0.5, &0.0]]);
        assert!(choices::<f64>(&[], best).is_empty());
    }
}
