package gitscan

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// RemoteIdentity is a remote's URL in one form, whatever way a clone
// spells it, so two clones of one repository meet (issue #43): the scp
// form, ssh://, https:// with or without a user, git://, a trailing
// ".git" or "/", the host's case and a scheme's default port all name one
// repository, "host/owner/name":
//
//	git@github.com:o/r.git        → github.com/o/r
//	ssh://git@github.com:22/o/r   → github.com/o/r
//	https://ana@GitHub.com/o/r/   → github.com/o/r
//
// A remote on this machine's disk (a path, absolute or relative to dir,
// or a file:// URL) is "file://" and its absolute path, symbolic links
// resolved where it exists, a trailing "/.git" dropped: a path names a
// repository on one machine only, which is why the form says so.
// The URL given is the one git resolves (`git ls-remote --get-url`,
// url.<base>.insteadOf applied). "" when raw is not a URL git would use.
func RemoteIdentity(raw, dir string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.ContainsAny(raw, "\x00\n\r") {
		return ""
	}
	if i := strings.Index(raw, "::"); i > 0 && !strings.Contains(raw[:i], "/") {
		return "" // a transport helper's "x::address": nothing git should run
	}
	if strings.Contains(raw, "://") {
		u, ok := schemeURL(raw)
		switch {
		case !ok:
			return ""
		case u.Scheme == "file":
			return localIdentity(u.Path, dir)
		}
		return hostPath(u.Hostname(), u.Port(), u.Scheme, u.Path)
	}
	if host, p, ok := scpLike(raw); ok {
		return hostPath(host, "", "ssh", p)
	}
	return localIdentity(raw, dir)
}

// schemeURL parses raw when it has a scheme git knows ("ssh://",
// "https://", ...); a transport helper's "x::address" is none of them.
func schemeURL(raw string) (*url.URL, bool) {
	i := strings.Index(raw, "://")
	if i <= 0 {
		return nil, false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch strings.TrimPrefix(strings.TrimPrefix(u.Scheme, "git+"), "ssh+") {
	case "ssh", "git", "http", "https", "ftp", "ftps", "file":
		if u.Scheme != "file" && u.Hostname() == "" {
			return nil, false
		}
		return u, true
	}
	return nil, false
}

// scpLike splits git's scp-like form, "[user@]host:path", which git
// takes when a colon comes before any slash (git's url.c).
func scpLike(raw string) (host, p string, ok bool) {
	colon := strings.IndexByte(raw, ':')
	slash := strings.IndexByte(raw, '/')
	if colon <= 0 || (slash >= 0 && slash < colon) || strings.HasPrefix(raw[colon:], "::") {
		return "", "", false
	}
	host = raw[:colon]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	host = strings.Trim(host, "[]")
	if host == "" || len(host) == 1 { // "c:/x" is a Windows drive, not a host
		return "", "", false
	}
	return host, raw[colon+1:], true
}

// defaultPorts are the ports a scheme implies, dropped from the form.
var defaultPorts = map[string]string{"ssh": "22", "git": "9418", "http": "80", "https": "443", "ftp": "21", "ftps": "990"}

func hostPath(host, port, scheme, p string) string {
	host = strings.ToLower(host)
	scheme = strings.TrimPrefix(strings.TrimPrefix(scheme, "git+"), "ssh+")
	if port != "" && port != defaultPorts[scheme] {
		host += ":" + port
	}
	p = strings.Trim(path.Clean("/"+strings.TrimPrefix(p, "~")), "/")
	p = strings.TrimSuffix(p, ".git")
	if p == "" || p == "." {
		return host
	}
	return host + "/" + p
}

func localIdentity(p, dir string) string {
	if !filepath.IsAbs(p) {
		if dir == "" {
			return ""
		}
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		p = resolved
	}
	p = strings.TrimSuffix(p, string(filepath.Separator)+".git")
	return "file://" + filepath.ToSlash(p)
}
