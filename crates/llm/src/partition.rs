//! Partitions a model proposes (numbered items into groups), checked and fixed: every item
//! exactly once, by the first placement or — when litnav knows the items' vectors — by content.

/// Check that `groups` (1-based numbers) place every number 1..=count exactly once.
pub fn check_partition(groups: &[Vec<i64>], count: usize) -> std::result::Result<(), String> {
    let mut seen = vec![0usize; count + 1];
    for &number in groups.iter().flatten() {
        if number < 1 || number as usize > count {
            return Err(format!("number {number} does not exist (use 1 to {count})"));
        }
        seen[number as usize] += 1;
    }
    if let Some(twice) = (1..=count).find(|&i| seen[i] > 1) {
        return Err(format!("number {twice} is placed more than once"));
    }
    let missing: Vec<String> = (1..=count).filter(|&i| seen[i] == 0).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("numbers {} are not placed", missing.join(", ")));
    }
    if groups.iter().any(Vec::is_empty) {
        return Err("a group is empty".into());
    }
    Ok(())
}

/// The 0-based index of a model's 1-based item number, when it names one of `count` items.
fn item_index(number: i64, count: usize) -> Option<usize> {
    (number >= 1 && number as usize <= count).then(|| number as usize - 1)
}

/// Make `groups` a partition of 0..count: first placement kept, unknown numbers dropped, empty
/// groups removed; the numbers never placed are returned (0-based) for an extra group.
pub fn fix_partition(groups: &[Vec<i64>], count: usize) -> (Vec<Option<Vec<usize>>>, Vec<usize>) {
    let mut placed = vec![false; count];
    let fixed = groups
        .iter()
        .map(|group| {
            let kept: Vec<usize> = group
                .iter()
                .filter_map(|&n| item_index(n, count))
                .filter(|&i| !std::mem::replace(&mut placed[i], true))
                .collect();
            (!kept.is_empty()).then_some(kept)
        })
        .collect();
    let missing = (0..count).filter(|&i| !placed[i]).collect();
    (fixed, missing)
}

/// What litnav knows of the papers' content, to fix a placement the model got wrong: each paper's
/// unit vector (in the order the papers were given) and the encoder that made them, for names.
pub struct Content<'a> {
    /// Unit vector of each paper.
    pub vectors: &'a [Vec<f32>],
    /// Unit vectors of short texts, from the same encoder.
    pub embed: &'a dyn Fn(&[String]) -> Vec<Vec<f32>>,
}

/// Papers-to-groups like [`fix_partition`], deciding by content instead of by order: a paper
/// listed in several groups goes to the one it is closest to, and a paper listed nowhere joins
/// the closest group. Closeness to a group is the cosine between the paper's vector and the
/// group's name plus its mean cosine to the papers listed only in that group (a group with no such
/// paper counts its name's cosine twice); ties go to the earlier group. `names` holds one unit vector per
/// group. Returns the groups (`None` when left empty) and the papers that could not be placed
/// (only when there is no group).
pub fn place_by_content(
    groups: &[Vec<i64>],
    vectors: &[Vec<f32>],
    names: &[Vec<f32>],
) -> (Vec<Option<Vec<usize>>>, Vec<usize>) {
    let count = vectors.len();
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let listed: Vec<Vec<usize>> = groups
        .iter()
        .map(|group| {
            let mut papers: Vec<usize> = group.iter().filter_map(|&n| item_index(n, count)).collect();
            papers.sort_unstable();
            papers.dedup();
            papers
        })
        .collect();
    let mut listings = vec![0usize; count];
    listed.iter().flatten().for_each(|&i| listings[i] += 1);
    let own: Vec<Vec<usize>> =
        listed.iter().map(|papers| papers.iter().copied().filter(|&i| listings[i] == 1).collect()).collect();
    let closeness = |paper: usize, group: usize| -> f32 {
        let name = names.get(group).map_or(0.0, |n| cosine(&vectors[paper], n));
        let members = own[group].iter().map(|&j| cosine(&vectors[paper], &vectors[j])).sum::<f32>();
        name + if own[group].is_empty() { name } else { members / own[group].len() as f32 }
    };
    let mut placed: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    let mut unplaced = Vec::new();
    for (paper, &times) in listings.iter().enumerate() {
        let candidates: Vec<usize> = match times {
            0 => (0..groups.len()).collect(),
            _ => (0..groups.len()).filter(|&g| listed[g].contains(&paper)).collect(),
        };
        let closest = candidates.iter().map(|&g| (g, closeness(paper, g))).fold(
            None,
            |best: Option<(usize, f32)>, (g, score)| match best {
                Some((_, top)) if top >= score => best,
                _ => Some((g, score)),
            },
        );
        match closest {
            Some((group, _)) => placed[group].push(paper),
            None => unplaced.push(paper),
        }
    }
    // Within a group, papers keep the order the model listed them in; the forgotten ones follow.
    let ordered = groups
        .iter()
        .zip(placed)
        .map(|(group, mut papers)| {
            let rank = |i: &usize| group.iter().position(|&n| n == *i as i64 + 1).unwrap_or(usize::MAX);
            papers.sort_by_key(|i| (rank(i), *i));
            (!papers.is_empty()).then_some(papers)
        })
        .collect();
    (ordered, unplaced)
}
