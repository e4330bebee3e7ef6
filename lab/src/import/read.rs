//! Readers of the trace files (plain comma-separated, no quoting in any of them). Errors name
//! the file, the row (1-based, header = row 1) and the column.
use super::{bad, GavelType, ImportOptions, Server, TraceJob};
use mlsched_scenario::error::InputError;
use std::path::Path;

pub(super) fn read_text(path: &Path) -> Result<String, InputError> {
    mlsched_scenario::input::read_text(path, mlsched_scenario::input::Input::Trace).map_err(
        |mut e| {
            if e.problem.starts_with("cannot read") {
                e.problem.push_str(
                    " (the traces live in the repository's data/ folder; see data/README.md)",
                );
            }
            e
        },
    )
}

/// Rows as (row number, fields); `header` rows are checked against `expect` and skipped.
pub(super) fn rows<'a>(
    path: &Path,
    text: &'a str,
    expect: Option<&str>,
) -> Result<Vec<(usize, Vec<&'a str>)>, InputError> {
    let mut out = Vec::new();
    if let (Some(h), true) = (expect, text.trim().is_empty()) {
        return Err(bad(
            path,
            1,
            "header",
            format!("the file is empty; expected `{h}`"),
        ));
    }
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if i == 0 {
            if let Some(h) = expect {
                if line != h {
                    return Err(bad(
                        path,
                        1,
                        "header",
                        format!("expected `{h}`, got `{line}`"),
                    ));
                }
                continue;
            }
        }
        if line.is_empty() {
            continue;
        }
        out.push((i + 1, line.split(',').collect()));
    }
    Ok(out)
}

pub(super) fn num(
    path: &Path,
    row: usize,
    f: &[&str],
    col: usize,
    name: &str,
) -> Result<f64, InputError> {
    let s = f
        .get(col)
        .ok_or_else(|| bad(path, row, name, "missing column"))?;
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| bad(path, row, name, format!("not a number: `{s}`")))?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad(
            path,
            row,
            name,
            format!("must be finite and >= 0, got {v}"),
        ));
    }
    Ok(v)
}

/// Seconds since 1970-01-01 of `YYYY-MM-DD HH:MM:SS` (the Philly timestamp, zone ignored).
fn timestamp(s: &str) -> Option<f64> {
    let (d, t) = s.trim().split_once(' ')?;
    let mut dp = d.split('-').map(|x| x.parse::<i64>());
    let (y, m, day) = (dp.next()?.ok()?, dp.next()?.ok()?, dp.next()?.ok()?);
    let mut tp = t.split(':').map(|x| x.parse::<i64>());
    let (hh, mm, ss) = (tp.next()?.ok()?, tp.next()?.ok()?, tp.next()?.ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hh * 3600 + mm * 60 + ss) as f64)
}

/// Philly jobs: `timestamp,duration,num_gpus,gpu_time,cluster`.
pub fn read_philly(path: &Path) -> Result<Vec<TraceJob>, InputError> {
    let text = read_text(path)?;
    let mut jobs = Vec::new();
    for (row, f) in rows(
        path,
        &text,
        Some("timestamp,duration,num_gpus,gpu_time,cluster"),
    )? {
        let submit = f
            .first()
            .and_then(|s| timestamp(s))
            .ok_or_else(|| bad(path, row, "timestamp", "expected `YYYY-MM-DD HH:MM:SS`"))?;
        let duration = num(path, row, &f, 1, "duration")?;
        let gpus = num(path, row, &f, 2, "num_gpus")?;
        if gpus < 1.0 || gpus.fract() != 0.0 {
            return Err(bad(
                path,
                row,
                "num_gpus",
                format!("must be a whole number >= 1, got {gpus}"),
            ));
        }
        jobs.push(TraceJob {
            id: format!("philly-{row}"),
            submit,
            duration,
            workers: gpus as u32,
            gpu: 1.0,
            cpu: 4.0,
            mem_gb: 16.0,
        });
    }
    Ok(jobs)
}

const OPENB_PODS: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time";

/// openb GPU pods (`num_gpu >= 1`): run time = deletion - scheduled (creation when never
/// scheduled); CPU and memory split evenly over the pod's GPUs.
pub fn read_openb_jobs(path: &Path) -> Result<Vec<TraceJob>, InputError> {
    let text = read_text(path)?;
    let mut jobs = Vec::new();
    for (row, f) in rows(path, &text, Some(OPENB_PODS))? {
        let gpus = num(path, row, &f, 3, "num_gpu")?;
        if gpus < 1.0 {
            continue; // CPU-only pod: not a training job
        }
        let cpu = num(path, row, &f, 1, "cpu_milli")? / 1000.0;
        let mem = num(path, row, &f, 2, "memory_mib")? / 1024.0;
        let milli = num(path, row, &f, 4, "gpu_milli")?;
        let created = num(path, row, &f, 8, "creation_time")?;
        let deleted = num(path, row, &f, 9, "deletion_time")?;
        let start = match f.get(10).map(|s| s.trim()) {
            Some("") | None => created,
            Some(_) => num(path, row, &f, 10, "scheduled_time")?,
        };
        let g = gpus as u32;
        jobs.push(TraceJob {
            id: f
                .first()
                .map_or_else(|| format!("openb-{row}"), |s| s.to_string()),
            submit: created,
            duration: (deleted - start).max(0.0),
            workers: g,
            gpu: if g == 1 && milli > 0.0 && milli < 1000.0 {
                milli / 1000.0
            } else {
                1.0
            },
            cpu: cpu / gpus,
            mem_gb: mem / gpus,
        });
    }
    Ok(jobs)
}

/// openb nodes: the first `servers` GPU nodes (file order) and the first `ps_servers` CPU-only
/// nodes, as `[gpu, cores, GB, server_bw]`.
pub fn read_openb_nodes(
    path: &Path,
    opts: &ImportOptions,
) -> Result<(Vec<Server>, Vec<Server>), InputError> {
    let text = read_text(path)?;
    let (mut w, mut p) = (Vec::new(), Vec::new());
    for (row, f) in rows(path, &text, Some("sn,cpu_milli,memory_mib,gpu,model"))? {
        let s = [
            num(path, row, &f, 3, "gpu")?,
            num(path, row, &f, 1, "cpu_milli")? / 1000.0,
            num(path, row, &f, 2, "memory_mib")? / 1024.0,
            opts.server_bw,
        ];
        if s[0] > 0.0 {
            if w.len() < opts.servers {
                w.push(s);
            }
        } else if p.len() < super::ps_wanted(opts) {
            p.push(s);
        }
    }
    enough(path, &w, &p, opts)?;
    Ok((w, p))
}

/// PAI 2020 machines (`machine,gpu_type,cap_cpu,cap_mem,cap_gpu`, no header): the first
/// `servers` GPU machines and the first `ps_servers` `CPU` machines.
pub fn read_pai_nodes(
    path: &Path,
    opts: &ImportOptions,
) -> Result<(Vec<Server>, Vec<Server>), InputError> {
    let text = read_text(path)?;
    let (mut w, mut p) = (Vec::new(), Vec::new());
    for (row, f) in rows(path, &text, None)? {
        let s = [
            num(path, row, &f, 4, "cap_gpu")?,
            num(path, row, &f, 2, "cap_cpu")?,
            num(path, row, &f, 3, "cap_mem")?,
            opts.server_bw,
        ];
        if s[0] > 0.0 {
            if w.len() < opts.servers {
                w.push(s);
            }
        } else if p.len() < super::ps_wanted(opts) {
            p.push(s);
        }
    }
    enough(path, &w, &p, opts)?;
    Ok((w, p))
}

/// A node list must hold the servers asked for: an error naming what it has, never fewer.
fn enough(path: &Path, w: &[Server], p: &[Server], opts: &ImportOptions) -> Result<(), InputError> {
    let short = |field: &str, asked: usize, has: usize, what: &str| {
        InputError::new(
            "option",
            field,
            format!("{asked} asked, but {} has {has} {what}", path.display()),
        )
    };
    if w.len() < opts.servers && opts.servers != super::ALL {
        return Err(short("servers", opts.servers, w.len(), "GPU nodes"));
    }
    // The default rule takes what the list has; only an explicit count must be met.
    let explicit = opts.ps_servers != super::ALL && opts.ps_servers != super::PS_AUTO;
    if p.len() < opts.ps_servers && explicit {
        return Err(short(
            "ps-servers",
            opts.ps_servers,
            p.len(),
            "CPU-only nodes",
        ));
    }
    Ok(())
}

/// Gavel isolated throughputs, scale factor 1, consolidated, from the simulation file: one
/// entry per job type with steps/s on K80, P100, V100, in first-seen order.
pub fn read_gavel(path: &Path) -> Result<Vec<GavelType>, InputError> {
    let text = read_text(path)?;
    let head = "source_file,worker_type,gpu_type,consolidated,job_type,model,batch_size,scale_factor,throughput_steps_per_s";
    let mut out: Vec<GavelType> = Vec::new();
    for (row, f) in rows(path, &text, Some(head))? {
        // Job type names contain no commas ("ResNet-18 (batch size 16)").
        if f.len() != 9 {
            return Err(bad(
                path,
                row,
                "row",
                format!("expected 9 columns, got {}", f.len()),
            ));
        }
        if f[0] != "simulation_throughputs.json" || f[3] != "true" || f[7] != "1" {
            continue;
        }
        let col = match f[2] {
            "k80" => 0,
            "p100" => 1,
            "v100" => 2,
            _ => continue,
        };
        let thr = num(path, row, &f, 8, "throughput_steps_per_s")?;
        match out.iter_mut().find(|g| g.name == f[4]) {
            Some(g) => g.throughput[col] = thr,
            None => {
                let mut t = [0.0; 3];
                t[col] = thr;
                out.push(GavelType {
                    name: f[4].to_string(),
                    throughput: t,
                });
            }
        }
    }
    // Usable types run on every GPU type (a 0 means "cannot run there").
    out.retain(|g| g.throughput.iter().all(|&t| t > 0.0));
    if out.is_empty() {
        return Err(bad(
            path,
            1,
            "throughput_steps_per_s",
            "no job type with K80, P100 and V100 throughputs",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::timestamp;

    #[test]
    fn philly_timestamps() {
        assert_eq!(timestamp("1970-01-01 00:00:00"), Some(0.0));
        assert_eq!(timestamp("2017-10-09 00:00:00"), Some(1_507_507_200.0));
        assert_eq!(
            timestamp("2017-10-09 07:01:55").map(|t| t - 1_507_507_200.0),
            Some(25_315.0)
        );
        assert_eq!(timestamp("yesterday"), None);
    }
}
