//! The limits of the side-by-side bench: processes that do no MCP at all.
//!
//! usage: canned stdio | canned http ADDR
//!
//! `stdio` answers each line of stdin with [`CANNED_REPLY`] and a newline, flushed at once:
//! the cost of the pipes and of two processes taking turns. `http` is a minimal HTTP/1.1 server
//! (keep-alive, `Content-Length` bodies only) answering every request with the same body; it
//! prints `listening http://ADDR/mcp` on stderr once bound.

use delphi_mcp_side_by_side::CANNED_REPLY;
use std::io::{BufRead, Write};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let outcome = match args.get(1).map(String::as_str) {
        Some("stdio") => stdio(),
        Some("http") => http(args.get(2).map_or("127.0.0.1:0", String::as_str)),
        _ => Err("usage: canned stdio | canned http ADDR".to_string()),
    };
    if let Err(error) = outcome {
        eprintln!("canned: {error}");
        std::process::exit(1);
    }
}

fn stdio() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    let reply = format!("{CANNED_REPLY}\n");
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        if read == 0 {
            return Ok(());
        }
        output
            .write_all(reply.as_bytes())
            .and_then(|()| output.flush())
            .map_err(|e| e.to_string())?;
    }
}

fn http(address: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| format!("bind {address}: {e}"))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("listening http://{local}/mcp");
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{CANNED_REPLY}",
            CANNED_REPLY.len()
        );
        let response: &'static [u8] = Box::leak(response.into_bytes().into_boxed_slice());
        loop {
            let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let _ = connection(stream, response).await;
            });
        }
    })
}

async fn connection(stream: tokio::net::TcpStream, response: &[u8]) -> std::io::Result<()> {
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut line = String::new();
    let mut body = Vec::new();
    loop {
        let mut length = 0usize;
        let mut first = true;
        loop {
            line.clear();
            if reader.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() && !first {
                break;
            }
            first = false;
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body).await?;
        writer.write_all(response).await?;
    }
}
