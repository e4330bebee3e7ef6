//! A small blocking HTTP/1.1 client for the service's tests and load generator: one kept-alive
//! connection, `Content-Length` or chunked bodies, timeouts on every read and write. Loopback
//! use only; not a general HTTP client.
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// An answer.
#[derive(Clone, Debug)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (`Null` if it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One connection to the service (re-opened after any error).
pub struct Client {
    addr: SocketAddr,
    token: Option<String>,
    timeout: Duration,
    conn: Option<BufReader<TcpStream>>,
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl Client {
    /// A client of `addr`, sending `Authorization: Bearer <token>` if given.
    pub fn new(addr: SocketAddr, token: Option<&str>) -> Self {
        Client {
            addr,
            token: token.map(str::to_string),
            timeout: Duration::from_secs(20),
            conn: None,
        }
    }

    /// Changes the read/write timeout (20 s by default).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Sends one request and reads the answer. Any error drops the connection: the outcome of
    /// that request is then unknown (it may or may not have been applied).
    pub fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        let r = self.try_request(method, path, headers, body);
        if r.is_err() {
            self.conn = None;
        }
        r
    }

    fn connect(&mut self) -> io::Result<&mut BufReader<TcpStream>> {
        if self.conn.is_none() {
            let s = TcpStream::connect_timeout(&self.addr, self.timeout)?;
            s.set_read_timeout(Some(self.timeout))?;
            s.set_write_timeout(Some(self.timeout))?;
            s.set_nodelay(true)?;
            self.conn = Some(BufReader::new(s));
        }
        self.conn.as_mut().ok_or_else(|| bad("no connection"))
    }

    fn try_request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(t) = &self.token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let conn = self.connect()?;
        let mut msg = head.into_bytes();
        msg.extend_from_slice(body);
        conn.get_mut().write_all(&msg)?;
        let r = read_response(conn)?;
        if r.header("connection") == Some("close") {
            self.conn = None;
        }
        Ok(r)
    }

    /// `GET path`.
    pub fn get(&mut self, path: &str) -> io::Result<Response> {
        self.request("GET", path, &[], b"")
    }

    /// `POST path` with a JSON body.
    pub fn post(&mut self, path: &str, body: &str) -> io::Result<Response> {
        self.request("POST", path, &[], body.as_bytes())
    }

    /// `PUT path` with a body.
    pub fn put(&mut self, path: &str, body: &str) -> io::Result<Response> {
        self.request("PUT", path, &[], body.as_bytes())
    }
}

fn line(r: &mut BufReader<TcpStream>) -> io::Result<String> {
    let mut s = String::new();
    if r.read_line(&mut s)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    Ok(s.trim_end().to_string())
}

fn read_response(r: &mut BufReader<TcpStream>) -> io::Result<Response> {
    let status_line = line(r)?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let mut headers = Vec::new();
    loop {
        let l = line(r)?;
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let find = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if let Some(n) = find("content-length") {
        let n: usize = n.parse().map_err(|_| bad("bad content-length"))?;
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let size = usize::from_str_radix(line(r)?.split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad("bad chunk size"))?;
            if size == 0 {
                line(r)?;
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..])?;
            line(r)?;
        }
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// Reads a server-sent-event stream from `path` until `enough` says so or `limit` passes;
/// returns the `data:` lines of `decisions` events seen.
pub fn read_stream(
    addr: SocketAddr,
    token: Option<&str>,
    path: &str,
    limit: Duration,
    enough: impl Fn(&[String]) -> bool,
) -> io::Result<Vec<String>> {
    let mut s = TcpStream::connect_timeout(&addr, limit)?;
    s.set_read_timeout(Some(Duration::from_millis(200)))?;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{auth}\r\n"
    )?;
    let start = std::time::Instant::now();
    let mut raw = Vec::new();
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    while start.elapsed() < limit {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
        let text = String::from_utf8_lossy(&raw);
        data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| d.starts_with("{\"seq\""))
            .map(str::to_string)
            .collect();
        if enough(&data) {
            break;
        }
    }
    Ok(data)
}
