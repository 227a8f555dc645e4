//! The coverage page as a browser draws it: the demo's `backfill` and `check`
//! pages rendered by a real headless Chromium, with checks that fail when the page misleads:
//! the page loads nothing from outside; it renders (not blank); the main coverage card has
//! the colour of its grade and names which coverage it shows (projected or current); the
//! check page of a catalog that declares almost nothing is red; each effects bar is drawn at
//! its share of the total, as the figure beside it says.
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it where it can); without it
//! the browser checks are skipped with a printed reason, and the static checks still run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Sandbox, run_in as run, snapshot};

/// The screenshot size: wide enough for the page's 1120-pixel column, tall enough for the
/// cards and both bar charts.
const WIDTH: usize = 1200;
const HEIGHT: usize = 1800;

/// Every way a page could reach the network or another file.
const EXTERNAL: [&str; 13] = [
    "http://", "https://", "//cdn", "<script", "<link", "<img", "<iframe", "<object", "<embed",
    "@import", "url(", "src=", "href=",
];

fn no_external_reference(html: &str) -> Result<(), String> {
    let lower = html.to_ascii_lowercase();
    match EXTERNAL.iter().find(|n| lower.contains(*n)) {
        Some(n) => Err(format!("the page holds `{n}`")),
        None => Ok(()),
    }
}

/// `$CHROMIUM`, else the first browser on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

fn screenshot(browser: &Path, html: &Path, png: &Path) -> Result<(), String> {
    let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-color-profile=srgb",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("file://{}", html.display()))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", browser.display()))?;
    if !png.is_file() {
        return Err(format!(
            "{} wrote no screenshot (exit {:?}): {}",
            browser.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// A decoded screenshot, one RGB triple per pixel.
struct Image {
    width: usize,
    height: usize,
    pixels: Vec<[u8; 3]>,
}

impl Image {
    fn read(path: &Path) -> Image {
        let bytes = std::fs::read(path).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.bit_depth, png::BitDepth::Eight, "{info:?}");
        let step = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        };
        let pixels = buf[..info.buffer_size()]
            .chunks_exact(step)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Image {
            width: info.width as usize,
            height: info.height as usize,
            pixels,
        }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }

    /// Pixels of exactly `color` in the rectangle `x0..x1` by `y0..y1`.
    fn count(&self, color: [u8; 3], (x0, x1): (usize, usize), (y0, y1): (usize, usize)) -> usize {
        (y0..y1.min(self.height))
            .flat_map(|y| (x0..x1.min(self.width)).map(move |x| (x, y)))
            .filter(|&(x, y)| self.at(x, y) == color)
            .count()
    }
}

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// The card backgrounds of the three grades, as the page's style sheet sets them.
const GRADES: [(&str, &str); 3] = [
    ("good", "#e8f5e9"),
    ("fair", "#fff4d6"),
    ("poor", "#fdecea"),
];

const TRACK: &str = "#eceff2";
const EFFECT_COLORS: [(&str, &str); 5] = [
    ("read", "#1f77d0"),
    ("search", "#17a2b8"),
    ("write", "#f08c00"),
    ("delete", "#d93025"),
    ("execute", "#8e44ad"),
];

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// The main card's grade class and its figure, as the page writes them.
fn main_card(html: &str) -> (String, f64) {
    let class = between(html, "<div class=\"card main ", "\"").expect("a main card");
    let tail = &html[html.find("<div class=\"card main ").unwrap()..];
    let n = between(tail, "<div class=\"n\">", "%</div>").expect("a figure");
    (class.to_owned(), n.parse().unwrap())
}

fn grade_of(percent: f64) -> &'static str {
    if percent >= 95.0 {
        "good"
    } else if percent >= 75.0 {
        "fair"
    } else {
        "poor"
    }
}

/// The share of all actions with effects each effect has, as the page prints it.
fn printed_shares(html: &str) -> Vec<(&'static str, f64)> {
    EFFECT_COLORS
        .iter()
        .map(|(name, _)| {
            let row = &html[html
                .find(&format!(
                    "<div class=\"name\">{name}</div><div class=\"bar\">"
                ))
                .unwrap_or_else(|| panic!("no {name} bar"))..];
            let share = between(row, "<div class=\"num muted\">", "%</div>").unwrap();
            (*name, share.parse().unwrap())
        })
        .collect()
}

/// Checks one screenshot against its page; returns the lines the snapshot keeps (no
/// figure that inference could move).
fn check_screenshot(kind: &str, html: &str, img: &Image) -> Vec<String> {
    let mut said = Vec::new();
    assert_eq!((img.width, img.height), (WIDTH, HEIGHT));
    let white = img.pixels.iter().filter(|p| **p == [255, 255, 255]).count();
    let inked = 1.0 - white as f64 / img.pixels.len() as f64;
    let mut colours: Vec<[u8; 3]> = img.pixels.clone();
    colours.sort();
    colours.dedup();
    assert!(
        inked > 0.05 && colours.len() > 50,
        "{kind}: the render looks blank ({:.1}% inked, {} colours)",
        100.0 * inked,
        colours.len()
    );
    said.push(format!("{kind}: rendered, not blank"));

    // At this width the main card spans x 72 to 356 (two of the seven grid parts of the
    // 1056-pixel column); the next card starts at 369.
    let (class, figure) = main_card(html);
    assert_eq!(class, grade_of(figure), "{kind}: {figure}% graded {class}");
    let region = ((40, 350), (0, 500));
    for (grade, bg) in GRADES {
        let n = img.count(rgb(bg), region.0, region.1);
        if grade == class {
            assert!(
                n > 10_000,
                "{kind}: the main card is not drawn {grade} ({bg}): {n} pixels"
            );
        } else {
            assert!(
                n < 100,
                "{kind}: {n} pixels of the {grade} colour in the main card"
            );
        }
    }
    said.push(format!(
        "{kind}: the coverage card is drawn in the colour of its grade"
    ));

    // Each bar's drawn share of its track is the share printed beside it. The five bars
    // follow each other from the read bar down (the read colour is used nowhere else; red
    // is also the invalid segment of the connector bars above).
    let track = rgb(TRACK);
    let row_of = |color: [u8; 3], rows: std::ops::Range<usize>| {
        rows.max_by_key(|&y| img.count(color, (0, WIDTH), (y, y + 1)))
            .unwrap()
    };
    let first = row_of(rgb(EFFECT_COLORS[0].1), 0..img.height).saturating_sub(10);
    for ((name, share), (_, color)) in printed_shares(html).into_iter().zip(EFFECT_COLORS) {
        let color = rgb(color);
        let y = row_of(color, first..(first + 160).min(img.height));
        let bar = img.count(color, (0, WIDTH), (y, y + 1));
        if share < 1.0 {
            continue;
        }
        let row: Vec<usize> = (0..img.width)
            .filter(|&x| img.at(x, y) == color || img.at(x, y) == track)
            .collect();
        let (x0, x1) = (row[0], *row.last().unwrap());
        let drawn = 100.0 * bar as f64 / (x1 - x0 + 1) as f64;
        assert!(
            (drawn - share).abs() <= 1.5,
            "{kind}: the {name} bar is drawn at {drawn:.1}% of its track, the page says {share}%"
        );
    }
    said.push(format!(
        "{kind}: every effects bar is drawn at its share of the total"
    ));
    said
}

#[test]
fn demo_pages_render_honestly_in_a_browser() {
    let sb = Sandbox::new("demo");
    let backfill = run(
        sb.root(),
        &[
            "backfill",
            "catalog",
            "--patch",
            "out/effects.patch",
            "--report",
            "out/backfill.csv",
            "--html",
            "out/backfill.html",
        ],
    );
    // The demo's two invalid declarations are warnings: the run completes, every output
    // written.
    assert_eq!(backfill.code, 0, "{}", backfill.stderr);
    for _ in 0..2 {
        let check = run(
            sb.root(),
            &[
                "check",
                "catalog",
                "--report",
                "out/check.csv",
                "--history",
                "out/history.csv",
                "--html",
                "out/check.html",
            ],
        );
        // Findings (the demo's missing and invalid declarations) fail the check: exit 1.
        assert_eq!(check.code, 1, "{}", check.stderr);
    }
    let pages = [
        ("backfill", "out/backfill.html"),
        ("check", "out/check.html"),
    ];
    let mut said = Vec::new();
    for (kind, rel) in pages {
        let html = std::fs::read_to_string(sb.root().join(rel)).unwrap();
        no_external_reference(&html).unwrap_or_else(|e| panic!("{kind}: {e}"));
        said.push(format!("{kind}: no external reference"));
        let (class, figure) = main_card(&html);
        let name = match kind {
            "backfill" => "projected coverage",
            _ => "current coverage",
        };
        assert!(
            html.contains(&format!(
                "<div class=\"n\">{figure:.1}%</div><div class=\"l\">{name}</div>"
            )),
            "{kind}: the main card does not say `{name}`"
        );
        said.push(format!("{kind}: the main card says `{name}`"));
        if kind == "check" {
            // The demo declares effects on a handful of actions: its current coverage is
            // poor, and the page must not paint it green.
            assert_eq!(class, "poor", "{figure}%");
            assert!(html.contains("since "), "the trend from --history is shown");
        }
    }
    let Some(browser) = chromium() else {
        common::skip_without(
            "chromium",
            "the browser checks need Chromium (Debian's `chromium` package), not found on PATH or in $CHROMIUM",
        );
        return;
    };
    for (kind, rel) in pages {
        let html_path = sb.root().join(rel).canonicalize().unwrap();
        let png = sb.out.join(format!("{kind}.png"));
        if let Err(e) = screenshot(&browser, &html_path, &png) {
            common::skip_without("chromium", &e);
            return;
        }
        let html = std::fs::read_to_string(&html_path).unwrap();
        said.extend(check_screenshot(kind, &html, &Image::read(&png)));
        if let Some(dir) = std::env::var_os("KEEP_SCREENSHOTS") {
            std::fs::copy(&png, Path::new(&dir).join(format!("{kind}.png"))).unwrap();
        }
    }
    said.sort();
    snapshot("pages/screenshot-checks.txt", &(said.join("\n") + "\n"));
}

#[test]
fn external_references_are_caught() {
    assert!(no_external_reference("<p>plain</p><svg><text>x</text></svg>").is_ok());
    for bad in [
        "<img src=\"a.png\">",
        "<a href=\"x\">",
        "<style>@import 'x.css';</style>",
        "<div style=\"background:url(x)\">",
        "see https://example.org",
    ] {
        assert!(no_external_reference(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_checks_fail_on_a_misleading_render() {
    // A white page is blank; a page whose card is green for 1.5% fails the grade check.
    let blank = Image {
        width: WIDTH,
        height: HEIGHT,
        pixels: vec![[255, 255, 255]; WIDTH * HEIGHT],
    };
    let html = "<div class=\"card main good\"><div class=\"n\">1.5%</div>";
    let r = std::panic::catch_unwind(|| check_screenshot("t", html, &blank));
    assert!(r.is_err());
    let mut green = blank;
    for y in 100..300 {
        for x in 60..340 {
            green.pixels[y * WIDTH + x] = rgb("#e8f5e9");
        }
    }
    for (i, p) in green.pixels.iter_mut().enumerate().skip(600_000) {
        *p = [(i % 251) as u8, (i % 241) as u8, 9];
    }
    let r = std::panic::catch_unwind(|| check_screenshot("t", html, &green));
    let msg = r
        .err()
        .and_then(|e| e.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("1.5% graded good"), "{msg}");
}
