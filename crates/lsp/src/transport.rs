//! LSP's base protocol: `Content-Length` framed JSON over a byte stream.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A message bigger than this is a broken stream, not an answer (a workspace's symbols fit
/// in far less).
const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// The next message; `None` at the end of the stream.
pub async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> std::io::Result<Option<Value>> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            // Stray blank lines between messages are tolerated.
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(value.trim().parse().map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("bad Content-Length header: {header:?}"),
                )
            })?);
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_MESSAGE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message of {length} bytes is more than {MAX_MESSAGE_BYTES}"),
        ));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &Value,
) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    writer.write_all(&framed).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn frames_round_trip_and_end_cleanly() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"jsonrpc": "2.0", "id": 1, "result": "é"}))
            .await
            .unwrap();
        write_message(&mut buf, &json!({"jsonrpc": "2.0", "method": "x"}))
            .await
            .unwrap();
        let mut reader = tokio::io::BufReader::new(&buf[..]);
        assert_eq!(
            read_message(&mut reader).await.unwrap().unwrap()["result"],
            "é"
        );
        assert_eq!(
            read_message(&mut reader).await.unwrap().unwrap()["method"],
            "x"
        );
        assert!(read_message(&mut reader).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn takes_other_headers_and_refuses_broken_ones() {
        let raw = b"Content-Type: application/vscode-jsonrpc\r\ncontent-length: 2\r\n\r\n{}";
        let mut reader = tokio::io::BufReader::new(&raw[..]);
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap(), json!({}));
        let bad = b"Content-Length: x\r\n\r\n{}";
        assert!(
            read_message(&mut tokio::io::BufReader::new(&bad[..]))
                .await
                .is_err()
        );
        let cut = b"Content-Length: 10\r\n\r\n{}";
        assert!(
            read_message(&mut tokio::io::BufReader::new(&cut[..]))
                .await
                .is_err()
        );
    }
}
