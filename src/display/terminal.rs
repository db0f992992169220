//! The size of the terminal on a standard descriptor, for what is drawn to
//! its width (the REPL's timelines, a program's `os.get_terminal_size`).

/// The columns and lines of the terminal on stdout (1) or stderr (2);
/// None when that descriptor is not a terminal.
pub fn size(fd: i32) -> Option<(u16, u16)> {
    if !matches!(fd, 1 | 2) {
        return None;
    }
    // SAFETY: winsize is plain data; TIOCGWINSZ fills it or fails.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: a standard descriptor and a valid pointer to a winsize.
    let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } == 0;
    ok.then_some((ws.ws_col, ws.ws_row))
}
