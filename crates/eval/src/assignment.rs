//! Minimum-cost assignment on a square matrix of finite f64 costs (the Hungarian method, in the
//! shortest-augmenting-path form with row and column potentials, O(n³)).

/// The minimum total cost of a perfect matching of rows to columns of the `n × n` row-major
/// `costs`, and the column assigned to each row. Costs must be finite.
pub fn min_cost_assignment(costs: &[f64], n: usize) -> (f64, Vec<usize>) {
    assert_eq!(costs.len(), n * n, "a square cost matrix");
    assert!(costs.iter().all(|c| c.is_finite()), "costs must be finite");
    if n == 0 {
        return (0.0, Vec::new());
    }
    // 1-based arrays as in the textbook formulation; column 0 is a virtual start.
    let mut u = vec![0.0f64; n + 1];
    let mut v = vec![0.0f64; n + 1];
    let mut row_of_column = vec![0usize; n + 1];
    let mut way = vec![0usize; n + 1];
    for row in 1..=n {
        row_of_column[0] = row;
        let mut column = 0;
        let mut min_slack = vec![f64::INFINITY; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[column] = true;
            let i = row_of_column[column];
            let mut delta = f64::INFINITY;
            let mut next = 0;
            for j in 1..=n {
                if used[j] {
                    continue;
                }
                let slack = costs[(i - 1) * n + (j - 1)] - u[i] - v[j];
                if slack < min_slack[j] {
                    min_slack[j] = slack;
                    way[j] = column;
                }
                if min_slack[j] < delta {
                    delta = min_slack[j];
                    next = j;
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[row_of_column[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_slack[j] -= delta;
                }
            }
            column = next;
            if row_of_column[column] == 0 {
                break;
            }
        }
        loop {
            let previous = way[column];
            row_of_column[column] = row_of_column[previous];
            column = previous;
            if column == 0 {
                break;
            }
        }
    }
    let mut assignment = vec![0usize; n];
    for j in 1..=n {
        assignment[row_of_column[j] - 1] = j - 1;
    }
    let total = assignment.iter().enumerate().map(|(i, &j)| costs[i * n + j]).sum();
    (total, assignment)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive minimum over all permutations, for small n.
    fn brute_force(costs: &[f64], n: usize) -> f64 {
        fn go(costs: &[f64], n: usize, row: usize, used: &mut Vec<bool>) -> f64 {
            if row == n {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for j in 0..n {
                if !used[j] {
                    used[j] = true;
                    best = best.min(costs[row * n + j] + go(costs, n, row + 1, used));
                    used[j] = false;
                }
            }
            best
        }
        go(costs, n, 0, &mut vec![false; n])
    }

    #[test]
    fn matches_brute_force() {
        let mut state: u64 = 99;
        for n in 1..=7 {
            for _ in 0..30 {
                let costs: Vec<f64> = (0..n * n)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((state >> 11) as f64 / (1u64 << 53) as f64) * 10.0 - 2.0
                    })
                    .collect();
                let (total, assignment) = min_cost_assignment(&costs, n);
                assert!((total - brute_force(&costs, n)).abs() < 1e-9);
                let mut seen = assignment.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }
}
