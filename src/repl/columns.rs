//! How wide the terminal is.

/// The terminal's columns (stdout's), else `COLUMNS`, else 80.
pub fn terminal_columns() -> usize {
    if let Some((columns, _)) = crate::display::terminal::size(1).filter(|(c, _)| *c > 0) {
        return usize::from(columns);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(80)
}
