package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// roots are the directories the server may open files under, each
// absolute with its symbolic links resolved.
type roots struct {
	dirs []string
	// given says the directories were given (--root): client roots then
	// narrow them; else they are the current directory, which client
	// roots replace.
	given bool
}

// clientRootsTimeout bounds the question that asks a client its roots.
const clientRootsTimeout = 5 * time.Second

// newRoots resolves the directories given; none: the current directory.
func newRoots(given []string) (*roots, error) {
	r := &roots{given: len(given) > 0}
	if !r.given {
		given = []string{"."}
	}
	for _, d := range given {
		c, err := canonical(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("root %s: not a directory", d)
		}
		r.dirs = append(r.dirs, c)
	}
	return r, nil
}

// canonical is path made absolute, cleaned, with every symbolic link
// resolved; the file must exist.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// resolve returns the canonical path of the file a tool names: relative
// to the first root when relative, refused when it holds "..", when it
// (its symbolic links resolved) lies outside the roots, or when it is not
// a regular file.
func (r *roots) resolve(ctx context.Context, req *sdk.CallToolRequest, path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("no path given: name a file under the roots (%s)", strings.Join(r.dirs, ", "))
	}
	if slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
		return "", fmt.Errorf("refused: %q holds \"..\": name the file by a path under the roots (%s)", path, strings.Join(r.dirs, ", "))
	}
	dirs := r.allowed(ctx, req)
	if len(dirs) == 0 {
		return "", fmt.Errorf("refused: the client's roots lie outside the server's (%s)", strings.Join(r.dirs, ", "))
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(dirs[0], p)
	}
	outside := fmt.Errorf("refused: %s lies outside the roots this server may read (%s)", path, strings.Join(dirs, ", "))
	c, err := canonical(p)
	if err != nil {
		// Whether a file outside the roots exists is none of the
		// client's business.
		if abs, aerr := filepath.Abs(p); aerr != nil || !slices.ContainsFunc(dirs, func(d string) bool { return within(d, abs) }) {
			return "", outside
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !slices.ContainsFunc(dirs, func(d string) bool { return within(d, c) }) {
		return "", outside
	}
	if fi, err := os.Stat(c); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	return c, nil
}

// within reports whether path lies in the directory dir (both canonical).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// allowed are the directories a call may read under: the server's roots,
// narrowed by the client's roots (or, when the server was given none,
// replaced by them) where the client gives some; none when the client's
// roots and the server's do not meet.
func (r *roots) allowed(ctx context.Context, req *sdk.CallToolRequest) []string {
	client := clientRoots(ctx, req)
	if len(client) == 0 {
		return r.dirs
	}
	if !r.given {
		return client
	}
	var dirs []string
	for _, c := range client {
		for _, d := range r.dirs {
			switch {
			case within(d, c):
				dirs = append(dirs, c)
			case within(c, d):
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// clientRoots asks the client its roots, when it says it has some: the
// directories of its file:// roots that exist, canonical. A client on
// protocol version 2026-07-28 or later, which deprecates roots, is not
// asked (a server may no longer ask while it answers a request).
func clientRoots(ctx context.Context, req *sdk.CallToolRequest) []string {
	if req == nil || req.Session == nil {
		return nil
	}
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil || p.ProtocolVersion >= "2026-07-28" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, clientRootsTimeout)
	defer cancel()
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, root := range res.Roots {
		u, err := url.Parse(root.URI)
		if err != nil || u.Scheme != "file" {
			continue
		}
		if c, err := canonical(u.Path); err == nil {
			dirs = append(dirs, c)
		}
	}
	return dirs
}
