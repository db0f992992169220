//! "did you mean `randn`?": the closest known name by edit distance.

pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        // Ties go to the first name in order, so the same script gets the
        // same suggestion on every run, whatever order the names came in.
        .min_by_key(|(d, c)| (*d, c.len().abs_diff(name.len()), *c))
        .map(|(_, c)| c.to_string())
}

/// Levenshtein distance, with a swap of two neighbours counting as one edit.
pub fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses() {
        assert_eq!(
            closest("randm", ["rand", "randn", "zeros"]),
            Some("randn".into())
        );
        assert_eq!(
            closest("zeors", ["rand", "randn", "zeros"]),
            Some("zeros".into())
        );
        assert_eq!(closest("qqqqq", ["rand", "randn", "zeros"]), None);
        // A tie does not depend on the order of the candidates.
        assert_eq!(closest("t3", ["t2", "t0"]), Some("t0".into()));
        assert_eq!(closest("t3", ["t0", "t2"]), Some("t0".into()));
    }
}
