//! Positions for drawing a citation graph: a seeded force-directed layout (Fruchterman and
//! Reingold's forces, with repulsion counted only between nodes in neighbouring grid cells so a
//! pass costs O(n) rather than O(n²)), in which each node is also pulled towards its group's
//! anchor — groups (a map's themes) are anchored on a circle, so papers of one theme stay
//! together and the same input always gives the same picture.

use litnav_core::rng::SplitMix64;
use std::collections::HashMap;

/// How long and how the layout runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutOptions {
    /// Passes of the force simulation.
    pub iterations: usize,
    /// Seed of the initial jitter.
    pub seed: u64,
    /// Strength of the pull towards the group's anchor, relative to an edge's.
    pub group_pull: f64,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions { iterations: 120, seed: litnav_core::DEFAULT_SEED, group_pull: 0.08 }
    }
}

/// Positions of `groups.len()` nodes (group of each node given), with `edges` between node
/// indices, scaled into [-1, 1] on both axes.
pub fn force_layout(groups: &[usize], edges: &[(usize, usize)], options: LayoutOptions) -> Vec<[f64; 2]> {
    let n = groups.len();
    if n == 0 {
        return Vec::new();
    }
    // The ideal distance between nodes: the unit square's area shared out.
    let k = (1.0 / n as f64).sqrt();
    let anchors = anchors(groups);
    let mut rng = SplitMix64(options.seed);
    let mut positions: Vec<[f64; 2]> = groups
        .iter()
        .map(|g| {
            let [ax, ay] = anchors[g];
            [ax + (rng.next_f64() - 0.5) * 0.2, ay + (rng.next_f64() - 0.5) * 0.2]
        })
        .collect();
    let mut temperature = 0.1;
    let cooling = temperature / (options.iterations.max(1) as f64 + 1.0);
    for _ in 0..options.iterations {
        let mut moves = repulsion(&positions, k);
        for &(a, b) in edges {
            if a == b || a >= n || b >= n {
                continue;
            }
            let (dx, dy) = (positions[a][0] - positions[b][0], positions[a][1] - positions[b][1]);
            let distance = (dx * dx + dy * dy).sqrt().max(1e-9);
            let force = distance * distance / k;
            let (fx, fy) = (dx / distance * force, dy / distance * force);
            moves[a][0] -= fx;
            moves[a][1] -= fy;
            moves[b][0] += fx;
            moves[b][1] += fy;
        }
        for (i, position) in positions.iter_mut().enumerate() {
            let [ax, ay] = anchors[&groups[i]];
            moves[i][0] += (ax - position[0]) * options.group_pull / k;
            moves[i][1] += (ay - position[1]) * options.group_pull / k;
            let length = (moves[i][0] * moves[i][0] + moves[i][1] * moves[i][1]).sqrt();
            if length > 0.0 {
                let step = length.min(temperature);
                position[0] += moves[i][0] / length * step;
                position[1] += moves[i][1] / length * step;
            }
        }
        temperature -= cooling;
    }
    scale_to_unit(&mut positions);
    positions
}

/// Each group's anchor: groups in order of first appearance, evenly around a circle of radius
/// 0.6 (one group: the centre).
fn anchors(groups: &[usize]) -> HashMap<usize, [f64; 2]> {
    let mut order = Vec::new();
    for &g in groups {
        if !order.contains(&g) {
            order.push(g);
        }
    }
    let count = order.len();
    order
        .into_iter()
        .enumerate()
        .map(|(i, g)| {
            if count == 1 {
                return (g, [0.0, 0.0]);
            }
            let angle = std::f64::consts::TAU * i as f64 / count as f64;
            (g, [0.6 * angle.cos(), 0.6 * angle.sin()])
        })
        .collect()
}

/// Repulsive displacement of every node from the nodes in its own and the eight neighbouring
/// cells of a grid whose cells are twice the ideal distance wide.
fn repulsion(positions: &[[f64; 2]], k: f64) -> Vec<[f64; 2]> {
    let cell = 2.0 * k;
    let key = |p: &[f64; 2]| ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64);
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        grid.entry(key(p)).or_default().push(i);
    }
    let mut moves = vec![[0.0; 2]; positions.len()];
    for (i, p) in positions.iter().enumerate() {
        let (cx, cy) = key(p);
        for gx in cx - 1..=cx + 1 {
            for gy in cy - 1..=cy + 1 {
                for &j in grid.get(&(gx, gy)).map(Vec::as_slice).unwrap_or(&[]) {
                    if j == i {
                        continue;
                    }
                    let (mut dx, mut dy) = (p[0] - positions[j][0], p[1] - positions[j][1]);
                    if dx == 0.0 && dy == 0.0 {
                        // Coincident nodes: push apart along a direction fixed by their indices.
                        let angle = (i * 7 + j * 13) as f64;
                        (dx, dy) = (angle.cos() * 1e-6, angle.sin() * 1e-6);
                    }
                    let distance2 = (dx * dx + dy * dy).max(1e-12);
                    let force = k * k / distance2;
                    moves[i][0] += dx * force;
                    moves[i][1] += dy * force;
                }
            }
        }
    }
    moves
}

fn scale_to_unit(positions: &mut [[f64; 2]]) {
    let (mut min, mut max) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in positions.iter() {
        for axis in 0..2 {
            min[axis] = min[axis].min(p[axis]);
            max[axis] = max[axis].max(p[axis]);
        }
    }
    for p in positions.iter_mut() {
        for axis in 0..2 {
            let span = max[axis] - min[axis];
            p[axis] = if span > 0.0 { (p[axis] - min[axis]) / span * 2.0 - 1.0 } else { 0.0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_input_same_picture_inside_the_unit_square() {
        let groups: Vec<usize> = (0..300).map(|i| i % 3).collect();
        let edges: Vec<(usize, usize)> = (1..300).map(|i| (i, i / 2)).collect();
        let a = force_layout(&groups, &edges, LayoutOptions::default());
        let b = force_layout(&groups, &edges, LayoutOptions::default());
        assert_eq!(a, b);
        assert!(a.iter().all(|p| p.iter().all(|v| (-1.0..=1.0).contains(v))));
        let other = force_layout(&groups, &edges, LayoutOptions { seed: 7, ..LayoutOptions::default() });
        assert_ne!(a, other);
    }

    #[test]
    fn groups_stay_together() {
        // Two groups without edges between them: each group's centroid is far from the other's,
        // and a node is nearer its own centroid than the other one.
        let groups: Vec<usize> = (0..200).map(|i| usize::from(i >= 100)).collect();
        let p = force_layout(&groups, &[], LayoutOptions::default());
        let centroid = |g: usize| {
            let members: Vec<&[f64; 2]> = p.iter().zip(&groups).filter(|(_, x)| **x == g).map(|(p, _)| p).collect();
            let n = members.len() as f64;
            [members.iter().map(|m| m[0]).sum::<f64>() / n, members.iter().map(|m| m[1]).sum::<f64>() / n]
        };
        let (c0, c1) = (centroid(0), centroid(1));
        let d = |a: &[f64; 2], b: &[f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        let nearer = p.iter().zip(&groups).filter(|(q, g)| (**g == 0) == (d(q, &c0) < d(q, &c1))).count();
        assert!(nearer >= 190, "{nearer} of 200 nearer their own group");
    }

    #[test]
    fn empty_and_single() {
        assert!(force_layout(&[], &[], LayoutOptions::default()).is_empty());
        assert_eq!(force_layout(&[0], &[], LayoutOptions::default()), vec![[0.0, 0.0]]);
    }
}
