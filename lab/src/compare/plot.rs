//! Plot primitives of compare's SVG files (plotters, SVG backend): bar charts with optional
//! error bars, grouped bar charts and line charts. Every chart has a title, both axes described
//! with their unit, tick labels that fit (`2.5e8`, not `250000000.0`) and, when it has several
//! series, a legend in its own column to the right of the data, never over it.
//!
//! A chart is drawn only from data: the callers ([`super::output`]) skip a plot that would have
//! nothing to show rather than write an empty file.
use super::number::tick;
use mlsched_scenario::error::RunError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Width and height of every plot, pixels.
pub const SIZE: (u32, u32) = (800, 450);
/// Width of the legend column.
const LEGEND_W: u32 = 170;
const FONT: &str = "sans-serif";

fn err(path: &Path, e: impl std::fmt::Debug) -> RunError {
    RunError::runtime(format!("cannot draw {}: {e:?}", path.display()))
}

/// The colour of series `i` (a fixed palette: the same policy gets the same colour in every
/// plot of a report).
pub fn colour(i: usize) -> RGBColor {
    const P: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    P[i % P.len()]
}

/// Axis descriptions and title of a chart.
pub struct Labels<'a> {
    /// What is compared.
    pub title: &'a str,
    /// x axis: quantity and unit.
    pub x: &'a str,
    /// y axis: quantity and unit.
    pub y: &'a str,
}

/// One series of a grouped bar chart: its name (legend) and one value per group, with an
/// optional error half-width.
pub struct BarSeries {
    /// Legend entry.
    pub name: String,
    /// Palette index of the series (its policy's place in the report).
    pub colour: usize,
    /// Palette index of each bar, when the bars of one series are different policies (a chart
    /// of one value per policy); empty: every bar in [`Self::colour`].
    pub per_bar: Vec<usize>,
    /// (value, error half-width) per group.
    pub values: Vec<(f64, Option<f64>)>,
}

/// Draws the legend of `entries` (name, palette index) into `area` (a column of its own, right
/// of the data).
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, usize)],
) where
    DB::ErrorType: 'static,
{
    for (i, (n, k)) in entries.iter().enumerate() {
        let y = 50 + 22 * i as i32;
        let c = colour(*k);
        let _ = area.draw(&Rectangle::new([(8, y - 6), (26, y + 6)], c.filled()));
        let _ = area.draw(&Text::new(n.clone(), (32, y - 7), (FONT, 14).into_font()));
    }
}

/// Bars per group (x) and series (colour): a bar chart when there is one series, a grouped bar
/// chart otherwise. Error half-widths, when given, are drawn as whiskers.
pub fn grouped_bars(
    path: &Path,
    l: &Labels,
    groups: &[String],
    series: &[BarSeries],
) -> Result<(), RunError> {
    let g = series.len().max(1) as i32;
    let n = groups.len().max(1) as i32;
    // Integer x axis, two units per bar, one bar of gap per group: group i spans
    // [2 (g+1) i, 2 (g+1) (i+1)), its bars start one unit in, its centre is at 2 (g+1) i + g + 1.
    let span = 2 * (g + 1);
    let xmax = span * n;
    let top = series
        .iter()
        .flat_map(|s| s.values.iter().map(|(v, e)| v + e.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    let bottom = series
        .iter()
        .flat_map(|s| s.values.iter().map(|(v, e)| v - e.unwrap_or(0.0)))
        .fold(0.0, f64::min);
    let (y0, y1) = padded(bottom, top);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(path, e))?;
    let multi = series.len() > 1;
    let (plot, side) = root.split_horizontally(SIZE.0 - if multi { LEGEND_W } else { 0 });
    // Many groups: names written downwards so that they do not run into each other.
    let rotate = groups.len() > 8;
    let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as u32;
    let mut chart = ChartBuilder::on(&plot)
        .caption(l.title, (FONT, 17))
        .margin(12)
        .x_label_area_size(if rotate { 40 + 7 * longest.min(24) } else { 48 })
        .y_label_area_size(78)
        .build_cartesian_2d(0..xmax, y0..y1)
        .map_err(|e| err(path, e))?;
    let centre = |i: i32| span * i + g + 1;
    let x_style = if rotate {
        TextStyle::from((FONT, 13).into_font().transform(FontTransform::Rotate90))
            .pos(Pos::new(HPos::Left, VPos::Center))
    } else {
        TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top))
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels((xmax + 1) as usize)
        .x_label_formatter(&|x| {
            let i = x / span;
            if *x == centre(i) {
                groups.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .set_tick_mark_size(plotters::chart::LabelAreaPosition::Bottom, 0)
        .label_style((FONT, 13))
        .x_label_style(x_style)
        .light_line_style(WHITE)
        .y_label_formatter(&|y| tick(*y))
        .x_desc(l.x)
        .y_desc(l.y)
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(|e| err(path, e))?;
    for (j, s) in series.iter().enumerate() {
        // One series: each group (policy) in its own colour; several: each series in its own.
        let c = |i: usize| colour(s.per_bar.get(i).copied().unwrap_or(s.colour));
        let x0 = |i: i32| span * i + 1 + 2 * j as i32;
        chart
            .draw_series(s.values.iter().enumerate().map(|(i, (v, _))| {
                let (lo, hi) = if *v >= 0.0 { (0.0, *v) } else { (*v, 0.0) };
                Rectangle::new([(x0(i as i32), lo), (x0(i as i32) + 2, hi)], c(i).filled())
            }))
            .map_err(|e| err(path, e))?;
        if !multi {
            // The value over each bar: a bar of height 0 still says "0".
            chart
                .draw_series(s.values.iter().enumerate().map(|(i, (v, e))| {
                    let y = v.max(0.0) + e.unwrap_or(0.0);
                    let st = (FONT, 13)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Center, VPos::Bottom));
                    Text::new(tick(*v), (x0(i as i32) + 1, y), st)
                }))
                .map_err(|e| err(path, e))?;
        }
        let whisker = s
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, (v, e))| e.filter(|e| *e > 0.0).map(|e| (i as i32, *v, e)));
        for (i, v, e) in whisker {
            let x = x0(i) + 1;
            let st = BLACK.stroke_width(2);
            for pts in [
                vec![(x, v - e), (x, v + e)],
                vec![(x0(i), v - e), (x0(i) + 2, v - e)],
                vec![(x0(i), v + e), (x0(i) + 2, v + e)],
            ] {
                chart
                    .draw_series(std::iter::once(PathElement::new(pts, st)))
                    .map_err(|e| err(path, e))?;
            }
        }
    }
    if multi {
        legend(
            &side,
            &series
                .iter()
                .map(|s| (s.name.clone(), s.colour))
                .collect::<Vec<_>>(),
        );
    }
    root.present().map_err(|e| err(path, e))
}

/// The y range of data spanning `lo..hi`: 0 included, 8% headroom, never empty.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let span = hi - lo;
    // All zero (a 0% violation rate): an axis 0..1 rather than a degenerate one.
    if span.is_nan() || span <= 1e-12 * lo.abs().max(hi.abs()).max(1.0) {
        return (lo, lo + 1.0);
    }
    (
        if lo < 0.0 { lo - 0.08 * span } else { lo },
        hi + 0.08 * span,
    )
}

/// One line of a line chart; `mark`, when given, is a point drawn as a large dot (the chosen
/// placement category).
pub struct Line {
    /// Legend entry.
    pub name: String,
    /// Palette index (its policy's place in the report).
    pub colour: usize,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
    /// A point to highlight.
    pub mark: Option<(f64, f64)>,
}

/// Lines (one per series, legend in its own column on the right) on `y0..y1`.
pub fn lines(
    path: &Path,
    l: &Labels,
    series: &[Line],
    y_range: (f64, f64),
) -> Result<(), RunError> {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (xlo, xhi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (xlo, xhi) = if xlo.is_finite() && xhi > xlo {
        (xlo.min(0.0), xhi)
    } else {
        (0.0, xhi.max(0.0) + 1.0)
    };
    // Whole-number x (categories, slots) over a short range: a tick per whole number.
    let whole = series
        .iter()
        .all(|s| s.points.iter().all(|p| p.0.fract() == 0.0));
    let x_ticks = if whole && xhi - xlo <= 10.0 {
        (xhi - xlo) as usize + 1
    } else {
        10
    };
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(path, e))?;
    let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_W);
    let mut chart = ChartBuilder::on(&plot)
        .caption(l.title, (FONT, 17))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(78)
        .build_cartesian_2d(xlo..xhi, y_range.0..y_range.1)
        .map_err(|e| err(path, e))?;
    chart
        .configure_mesh()
        .x_labels(x_ticks)
        .x_label_formatter(&|x| tick(*x))
        .y_label_formatter(&|y| tick(*y))
        .label_style((FONT, 13))
        .light_line_style(RGBColor(245, 245, 245))
        .x_desc(l.x)
        .y_desc(l.y)
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(|e| err(path, e))?;
    for (i, s) in series.iter().enumerate() {
        let c = colour(s.colour);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
            .map_err(|e| err(path, e))?;
        if s.points.len() == 1 {
            chart
                .draw_series(std::iter::once(Circle::new(s.points[0], 3, c.filled())))
                .map_err(|e| err(path, e))?;
        }
        if let Some(m) = s.mark {
            // Earlier series get larger dots, so that equal choices stay visible as rings.
            let r = 5 + 3 * (series.len() - 1 - i) as u32;
            chart
                .draw_series(std::iter::once(Circle::new(m, r, c.filled())))
                .map_err(|e| err(path, e))?;
        }
    }
    legend(
        &side,
        &series
            .iter()
            .map(|s| (s.name.clone(), s.colour))
            .collect::<Vec<_>>(),
    );
    root.present().map_err(|e| err(path, e))
}
