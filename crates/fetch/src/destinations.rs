//! Where the client may connect. A fetch must not become a way to reach what only the user's
//! machine can reach (server-side request forgery): every host name is resolved first, and a host
//! whose addresses include one that is not on the public internet — loopback, private,
//! link-local, shared (carrier-grade NAT), multicast, unspecified, reserved — is refused before a
//! single packet is sent, unless it is the host the owner named (`--api-url`: a mirror on the
//! owner's own network, or a test's stand-in on loopback).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// A connection refused because of where it would go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressRefused {
    /// The host asked for.
    pub host: String,
    /// The address it resolved to.
    pub address: IpAddr,
    /// What kind of address that is, in words.
    pub range: &'static str,
}

impl std::fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let article = if self.range.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        write!(
            f,
            "{} resolves to {}, {article} {} address: litnav connects only to public addresses, unless the owner names the API with --api-url",
            self.host, self.address, self.range
        )
    }
}

impl std::error::Error for AddressRefused {}

/// Why `address` is not on the public internet, or `None` when it is.
pub fn non_public_range(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => v4_range(v4),
        IpAddr::V6(v6) => v6_range(v6),
    }
}

fn v4_range(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match () {
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private",
        _ if ip.is_link_local() => "link-local",
        _ if a == 100 && (64..128).contains(&b) => "shared (carrier-grade NAT)",
        _ if a == 198 && (b == 18 || b == 19) => "benchmarking",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_broadcast() || a >= 240 => "reserved",
        _ => return None,
    })
}

fn v6_range(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_range(v4);
    }
    let first = ip.segments()[0];
    Some(match () {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if first & 0xfe00 == 0xfc00 => "private (unique local)",
        _ if first & 0xffc0 == 0xfe80 => "link-local",
        _ if first & 0xff00 == 0xff00 => "multicast",
        // NAT64's well-known prefix and the IPv4-compatible form carry an IPv4 address inside.
        _ if ip.segments()[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || ip.segments()[..6] == [0; 6] => {
            let [.., high, low] = ip.segments();
            return v4_range(Ipv4Addr::from(u32::from(high) << 16 | u32::from(low)));
        }
        _ => return None,
    })
}

/// The first address of `addresses` that a connection to `host` may not go to, unless `host` is
/// the trusted one.
pub fn refusal(host: &str, trusted: Option<&str>, addresses: &[std::net::SocketAddr]) -> Option<AddressRefused> {
    if trusted.is_some_and(|t| t.eq_ignore_ascii_case(host)) {
        return None;
    }
    addresses.iter().find_map(|a| {
        non_public_range(a.ip()).map(|range| AddressRefused { host: host.to_string(), address: a.ip(), range })
    })
}

/// The host of `url` (lower case, without brackets or port), when it has one.
pub fn host_of(url: &str) -> Option<String> {
    bare_host(&url.trim().parse().ok()?)
}

/// `uri`'s host as [`refusal`] compares hosts: lower case, an IPv6 address without brackets.
fn bare_host(uri: &ureq::http::Uri) -> Option<String> {
    Some(uri.host()?.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase())
}

/// The system's resolver, with every answer checked by [`refusal`].
#[derive(Debug)]
pub(crate) struct GuardedResolver {
    /// The hosts the owner named, allowed anywhere: the API's (`--api-url`), and the proxy the
    /// environment sets (`HTTPS_PROXY` and the like), which is often on the owner's own network.
    pub trusted: Vec<String>,
    inner: DefaultResolver,
}

impl GuardedResolver {
    pub(crate) fn new(trusted: Vec<String>) -> GuardedResolver {
        GuardedResolver { trusted, inner: DefaultResolver::default() }
    }
}

/// The host of the proxy the environment sets, as [`refusal`] compares hosts.
pub(crate) fn proxy_host(proxy: &ureq::Proxy) -> String {
    proxy.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addresses = self.inner.resolve(uri, config, timeout)?;
        let host = bare_host(uri).unwrap_or_default();
        let trusted = self.trusted.iter().find(|t| t.eq_ignore_ascii_case(&host)).map(String::as_str);
        match refusal(&host, trusted, &addresses) {
            Some(refused) => Err(ureq::Error::Io(std::io::Error::new(std::io::ErrorKind::PermissionDenied, refused))),
            None => Ok(addresses),
        }
    }
}

/// The refusal inside a failed exchange, when the resolver refused it.
pub(crate) fn refused_in(error: &ureq::Error) -> Option<&AddressRefused> {
    match error {
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<AddressRefused>(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(address: &str) -> Option<&'static str> {
        non_public_range(address.parse().unwrap())
    }

    #[test]
    fn every_non_public_range_is_named_and_public_addresses_pass() {
        let cases = [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (carrier-grade NAT)"),
            ("198.18.0.1", "benchmarking"),
            ("224.0.0.1", "multicast"),
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("255.255.255.255", "reserved"),
            ("240.0.0.1", "reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fd00::1", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
        ];
        for (address, expected) in cases {
            assert_eq!(range(address), Some(expected), "{address}");
        }
        for public in ["104.26.0.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1", "::ffff:8.8.8.8"] {
            assert_eq!(range(public), None, "{public}");
        }
    }

    #[test]
    fn only_the_owners_host_may_resolve_to_a_private_address() {
        let loopback = ["127.0.0.1:80".parse().unwrap()];
        assert_eq!(refusal("localhost", Some("localhost"), &loopback), None);
        let refused = refusal("localhost", Some("api.openalex.org"), &loopback).unwrap();
        assert_eq!(refused.range, "loopback");
        assert!(refused.to_string().starts_with("localhost resolves to 127.0.0.1, a loopback address"));
        let mixed = ["104.26.0.1:443".parse().unwrap(), "10.0.0.1:443".parse().unwrap()];
        assert_eq!(refusal("evil.example", None, &mixed).unwrap().address.to_string(), "10.0.0.1", "any one address");
        assert_eq!(host_of("http://[::1]:8080/works"), Some("::1".to_string()));
        assert_eq!(host_of("https://API.openalex.org"), Some("api.openalex.org".to_string()));
    }
}
