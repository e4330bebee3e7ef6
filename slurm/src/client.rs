//! [`Client`]: the Slurm commands the bridge needs, each one call through a [`Runner`].
use crate::comment::MlschedComment;
use crate::error::SlurmError;
use crate::job::{self, Job, ShownJob};
use crate::node::{self, Node};
use crate::runner::{command_line, Runner};

/// The Slurm client: reads nodes and jobs, starts, cancels and downs through `scontrol`.
pub struct Client<R: Runner> {
    runner: R,
}

/// A job to submit held (`sbatch -H`): what the tests (and a user) submit for mlsched.
#[derive(Clone, Debug, Default)]
pub struct HeldJob {
    /// `-p` (the default partition when `None`).
    pub partition: Option<String>,
    /// `-J`.
    pub name: Option<String>,
    /// `--comment` (for mlsched: `mlsched:<job JSON>`).
    pub comment: String,
    /// The shell command the job runs (`--wrap`).
    pub wrap: String,
    /// `-o` (`/dev/null` when `None`).
    pub output: Option<String>,
}

impl<R: Runner> Client<R> {
    /// A client running its commands through `runner`.
    pub fn new(runner: R) -> Self {
        Self { runner }
    }

    /// The runner (a test reads a [`crate::Recorded`] runner's calls through it).
    pub fn runner(&self) -> &R {
        &self.runner
    }

    fn run(&self, program: &str, args: &[&str]) -> Result<(String, String), SlurmError> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let out = self.runner.run(program, &args)?;
        Ok((command_line(program, &args), out))
    }

    /// Every node (`sinfo --json`), in Slurm's order.
    pub fn nodes(&self) -> Result<Vec<Node>, SlurmError> {
        let (command, out) = self.run("sinfo", &["--json"])?;
        node::parse_sinfo(&command, &out)
    }

    /// The nodes of `partition` (every node when `None`); an unknown partition is an error.
    pub fn partition_nodes(&self, partition: Option<&str>) -> Result<Vec<Node>, SlurmError> {
        let nodes: Vec<Node> = self
            .nodes()?
            .into_iter()
            .filter(|n| n.in_partition(partition))
            .collect();
        if nodes.is_empty() {
            return Err(SlurmError::Request {
                message: match partition {
                    Some(p) => format!("partition {p} has no nodes (or does not exist)"),
                    None => "the cluster has no nodes".into(),
                },
            });
        }
        Ok(nodes)
    }

    /// Every job Slurm still remembers, ended ones included (`squeue --json --states=all`;
    /// ended jobs stay for `MinJobAge` seconds).
    pub fn jobs(&self) -> Result<Vec<Job>, SlurmError> {
        let (command, out) = self.run("squeue", &["--json", "--states=all"])?;
        job::parse_squeue(&command, &out)
    }

    /// One job as `scontrol show job -o ID` prints it.
    pub fn show_job(&self, id: u64) -> Result<ShownJob, SlurmError> {
        let id = id.to_string();
        let (command, out) = self.run("scontrol", &["show", "job", "-o", &id])?;
        job::parse_show_job(&command, &out)
    }

    /// Starts held job `id` on exactly `nodes` with `gpus_per_node` GPUs on each: sets its node
    /// list, node count and GPUs per node, and its start time to now (a job Slurm requeued after
    /// a node failure has a begin time minutes ahead), then releases it.
    pub fn start(&self, id: u64, nodes: &[String], gpus_per_node: u32) -> Result<(), SlurmError> {
        if nodes.is_empty() {
            return Err(SlurmError::Request {
                message: format!("job {id}: start on no node"),
            });
        }
        let jobid = format!("jobid={id}");
        let list = format!("NodeList={}", nodes.join(","));
        let count = format!("NumNodes={}", nodes.len());
        let gres = if gpus_per_node == 0 {
            // An empty value clears a GPU request made at submission.
            "TresPerNode=".to_string()
        } else {
            format!("TresPerNode=gres:gpu:{gpus_per_node}")
        };
        let now = "StartTime=now";
        self.run("scontrol", &["update", &jobid, &list, &count, &gres, now])?;
        self.run("scontrol", &["release", &id.to_string()])?;
        Ok(())
    }

    /// Holds pending job `id` (`scontrol hold`): Slurm will not start it until released.
    pub fn hold(&self, id: u64) -> Result<(), SlurmError> {
        self.run("scontrol", &["hold", &id.to_string()])?;
        Ok(())
    }

    /// Stops running (or ended) batch job `id` and puts it back pending and held (`scontrol
    /// requeuehold`), so it can be started again on other nodes.
    pub fn requeue_hold(&self, id: u64) -> Result<(), SlurmError> {
        self.run("scontrol", &["requeuehold", &id.to_string()])?;
        Ok(())
    }

    /// Cancels `job`, its reason first written into its comment (see [`MlschedComment`]). A job
    /// without a valid `mlsched:` comment (none, or one that does not parse: the job the bridge
    /// refuses for it) gets `mlsched-cancel:<reason>` as its comment.
    pub fn cancel(&self, job: &Job, reason: &str) -> Result<(), SlurmError> {
        let comment = match MlschedComment::parse(job.id, &job.comment) {
            Ok(Some(c)) => c.with_cancel(reason),
            Ok(None) | Err(_) => format!("{}{}", crate::comment::CANCEL_MARK.trim_start(), reason),
        };
        let jobid = format!("jobid={}", job.id);
        let comment = format!("Comment={comment}");
        self.run("scontrol", &["update", &jobid, &comment])?;
        self.run("scancel", &[&job.id.to_string()])?;
        Ok(())
    }

    /// Takes node `name` down (`scontrol update nodename=NAME state=down reason=...`); its
    /// running jobs are killed by Slurm (they end NODE_FAIL).
    pub fn node_down(&self, name: &str, reason: &str) -> Result<(), SlurmError> {
        let node = format!("nodename={name}");
        let reason = format!("reason={reason}");
        self.run("scontrol", &["update", &node, "state=down", &reason])?;
        Ok(())
    }

    /// Brings node `name` back (`state=resume`).
    pub fn node_resume(&self, name: &str) -> Result<(), SlurmError> {
        let node = format!("nodename={name}");
        self.run("scontrol", &["update", &node, "state=resume"])?;
        Ok(())
    }

    /// Submits a held job (`sbatch -H --parsable ...`) and returns its Slurm job id.
    pub fn submit_held(&self, job: &HeldJob) -> Result<u64, SlurmError> {
        let mut args: Vec<String> = vec!["-H".into(), "--parsable".into()];
        if let Some(p) = &job.partition {
            args.push(format!("--partition={p}"));
        }
        if let Some(n) = &job.name {
            args.push(format!("--job-name={n}"));
        }
        args.push(format!("--comment={}", job.comment));
        args.push(format!(
            "--output={}",
            job.output.as_deref().unwrap_or("/dev/null")
        ));
        args.push(format!("--wrap={}", job.wrap));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (command, out) = self.run("sbatch", &refs)?;
        // `--parsable`: `ID` or `ID;CLUSTER`.
        let id = out.trim().split(';').next().unwrap_or("");
        id.parse().map_err(|_| SlurmError::Output {
            command,
            message: format!("expected a job id, got `{}`", out.trim()),
        })
    }
}
