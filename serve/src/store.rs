//! Where the service's bytes go: the [`Store`] trait over the file system, so a test can put an
//! error-injecting store ([`FaultyStore`]) under the very code that runs in production.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// An append-only file: the write-ahead log of one cluster.
pub trait AppendFile: Send {
    /// Appends `bytes` at the end (not durable before [`AppendFile::sync`]).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Makes every byte appended so far durable (`fdatasync`).
    fn sync(&mut self) -> io::Result<()>;
    /// Cuts the file to `len` bytes (a failed write's partial bytes) and makes that durable.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

/// The file operations the service uses. Paths are absolute or relative to the process.
pub trait Store: Send + Sync + 'static {
    /// The whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Writes `bytes` to `path` atomically and durably: a temporary file, fsync, rename over
    /// `path`, fsync of the directory. A crash leaves the old file or the new one.
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Opens (creating) `path` for appending; the directory entry is made durable.
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn AppendFile>>;
    /// Creates a directory and its parents, durably.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Renames `from` to `to` and makes both directories durable.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes a file.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// Removes a directory and everything in it.
    fn remove_dir_all(&self, path: &Path) -> io::Result<()>;
    /// The names of the entries of a directory, sorted.
    fn list(&self, path: &Path) -> io::Result<Vec<String>>;
}

/// The real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsStore;

fn sync_dir(dir: &Path) -> io::Result<()> {
    // A directory opened read-only can be fsync'd on Linux: this makes entries durable.
    File::open(dir)?.sync_all()
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

struct FsAppend {
    file: File,
}

impl AppendFile for FsAppend {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        // The file is in append mode: later writes go to the new end.
        self.file.set_len(len)?;
        self.file.sync_all()
    }
}

impl Store for FsStore {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let tmp = tmp_path(path);
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        sync_dir(parent(path))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn AppendFile>> {
        let existed = path.exists();
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        if !existed {
            file.sync_all()?;
            sync_dir(parent(path))?;
        }
        Ok(Box::new(FsAppend { file }))
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)?;
        sync_dir(parent(path))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)?;
        sync_dir(parent(to))?;
        sync_dir(parent(from))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::remove_dir_all(path)
    }

    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        let mut v: Vec<String> = fs::read_dir(path)?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        v.sort();
        Ok(v)
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// A [`FsStore`] whose writes can be made to fail as on a full disk: while
/// [`FaultyStore::set_full`] is on, an append writes half its bytes and fails with `ENOSPC`,
/// and fsync and atomic writes fail. For tests of the 503 path.
#[derive(Clone, Debug, Default)]
pub struct FaultyStore {
    full: Arc<AtomicBool>,
    failures: Arc<AtomicU64>,
}

impl FaultyStore {
    /// A store that works until told otherwise.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes every later write fail (`true`) or work again (`false`).
    pub fn set_full(&self, full: bool) {
        self.full.store(full, Ordering::SeqCst);
    }

    /// Writes refused so far.
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::SeqCst)
    }

    fn check(&self) -> io::Result<()> {
        if self.full.load(Ordering::SeqCst) {
            self.failures.fetch_add(1, Ordering::SeqCst);
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        Ok(())
    }
}

struct FaultyAppend {
    inner: Box<dyn AppendFile>,
    store: FaultyStore,
}

impl AppendFile for FaultyAppend {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.store.check().is_err() {
            // A full disk takes part of a write: the WAL must cut these bytes.
            self.inner.append(&bytes[..bytes.len() / 2])?;
            return Err(io::Error::from_raw_os_error(28));
        }
        self.inner.append(bytes)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.store.check()?;
        self.inner.sync()
    }
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        // Shrinking a file needs no free space.
        self.inner.truncate(len)
    }
}

impl Store for FaultyStore {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        FsStore.read(path)
    }
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.check()?;
        FsStore.write_atomic(path, bytes)
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn AppendFile>> {
        self.check()?;
        Ok(Box::new(FaultyAppend {
            inner: FsStore.open_append(path)?,
            store: self.clone(),
        }))
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.check()?;
        FsStore.create_dir_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        FsStore.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        FsStore.remove_file(path)
    }
    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        FsStore.remove_dir_all(path)
    }
    fn list(&self, path: &Path) -> io::Result<Vec<String>> {
        FsStore.list(path)
    }
}
