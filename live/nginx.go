package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nginxLimit is a limit_req setting of a real nginx: rate r/s, burst and
// nodelay (docs/limiters.md). herd predicts it as its gcra server.
type nginxLimit struct {
	rate, burst int
	nodelay     bool
}

func (l nginxLimit) String() string {
	s := fmt.Sprintf("nginx %dr/s burst=%d", l.rate, l.burst)
	if l.nodelay {
		s += " nodelay"
	}
	return s
}

// nginxWindow is herd's unit of time for the nginx cases (the rate is
// given per second; a window is only the unit of herd's horizon).
const nginxWindow = 100 * time.Millisecond

// nginxGrid is the nginx check's cases: the three real libraries against
// two limit_req settings, one answering its burst at once (nodelay) and one
// pacing it. The short grid leaves out retry-go against the paced setting,
// whose runs last about a minute (its tenth attempt comes 51 s after the
// first).
func nginxGrid(short bool) []caseSpec {
	var out []caseSpec
	for _, lim := range []nginxLimit{{rate: 100, burst: 20, nodelay: true}, {rate: 50, burst: 10}} {
		for _, name := range []string{"retry-go", "retryablehttp", "cenkalti"} {
			l, _ := libraryNamed(name)
			if short && !lim.nodelay && name == "retry-go" {
				continue
			}
			out = append(out, caseSpec{lib: l, clients: 200, k: lim.rate * int(nginxWindow) / int(time.Second), window: nginxWindow, nginx: &lim})
		}
	}
	return out
}

// nginxDir is where each repetition's nginx keeps its configuration, pid
// file and logs (-nginx-dir; a temporary directory when empty).
var nginxDir string

// nginxServer is a running nginx: its master process in the foreground
// (daemon off), stopped by stop.
type nginxServer struct {
	cmd  *exec.Cmd
	dir  string
	port int
	done chan error
	// stopped: stop was called.
	stopped bool
}

// nginxConf is the configuration of one nginx: one worker, logs and pid
// file in dir, listening on 127.0.0.1 only; /ok.txt is a static file
// behind limit_req (a static file, since return would answer before
// limit_req's phase), /ready answers without it.
const nginxConf = `worker_processes 1;
daemon off;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log crit;
events { worker_connections 4096; }
http {
    default_type text/plain;
    log_format herd '$msec $status $http_x_client';
    access_log {{dir}}/access.log herd;
    client_body_temp_path {{dir}}/body;
    keepalive_requests 100000;
    limit_req_zone $binary_remote_addr zone=herd:1m rate={{rate}}r/s;
    limit_req_status 503;
    limit_req_log_level info;
    server {
        listen 127.0.0.1:{{port}};
        location = /ready { access_log off; return 204; }
        location = /ok.txt { root {{dir}}/www; limit_req zone=herd burst={{burst}}{{nodelay}}; }
    }
}
`

// startNginx starts nginx with the limit on a free port of 127.0.0.1 and
// waits until it answers.
func startNginx(ctx context.Context, lim nginxLimit) (*nginxServer, error) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/nginx"); e != nil {
			return nil, fmt.Errorf("nginx is not installed (make live-nginx installs Debian's nginx-light): %w", err)
		}
		bin = "/usr/sbin/nginx"
	}
	dir, err := os.MkdirTemp(nginxDir, "herd-nginx-")
	if err != nil {
		return nil, err
	}
	// The worker runs as an unprivileged user: it reads www, through
	// every directory above it.
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		return nil, err
	}
	dirs := []string{dir, filepath.Join(dir, "www")}
	if nginxDir != "" {
		dirs = append(dirs, nginxDir)
	}
	for _, d := range dirs {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "www", "ok.txt"), []byte("ok\n"), 0o644); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	nodelay := ""
	if lim.nodelay {
		nodelay = " nodelay"
	}
	conf := strings.NewReplacer("{{dir}}", dir, "{{port}}", strconv.Itoa(port), "{{rate}}", strconv.Itoa(lim.rate),
		"{{burst}}", strconv.Itoa(lim.burst), "{{nodelay}}", nodelay).Replace(nginxConf)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &nginxServer{cmd: cmd, dir: dir, port: port, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	ready := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	for deadline := time.Now().Add(15 * time.Second); ; {
		resp, err := ready.Get(fmt.Sprintf("http://127.0.0.1:%d/ready", port))
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		select {
		case e := <-s.done:
			s.done <- e
			s.remove()
			return nil, fmt.Errorf("nginx exited at start (%v): %s", e, strings.TrimSpace(stderr.String()))
		case <-ctx.Done():
			s.remove()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.remove()
			return nil, fmt.Errorf("nginx did not answer on 127.0.0.1:%d within 15 s: %s", port, strings.TrimSpace(stderr.String()))
		}
	}
}

// freePort is a port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *nginxServer) url() string { return fmt.Sprintf("http://127.0.0.1:%d/ok.txt", s.port) }

// stop shuts nginx down (a graceful quit, then a kill after 5 s) and
// waits for its master to exit; once stopped, it does nothing.
func (s *nginxServer) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		s.done <- <-s.done
	}
}

// remove stops nginx and removes its directory.
func (s *nginxServer) remove() {
	s.stop()
	os.RemoveAll(s.dir)
}

// accessLog counts the requests the access log holds, and those answered
// 200; a status other than 200 and limit_req's 503 is an error (a worker
// that cannot read the file answers 403, which some libraries do not
// retry).
func (s *nginxServer) accessLog() (calls, ok int64, err error) {
	f, err := os.Open(filepath.Join(s.dir, "access.log"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			return 0, 0, fmt.Errorf("access log: %q", sc.Text())
		}
		calls++
		switch fields[1] {
		case "200":
			ok++
		case "503":
		default:
			return 0, 0, fmt.Errorf("nginx answered %s (access log line %q); its error log is %s", fields[1], sc.Text(), filepath.Join(s.dir, "error.log"))
		}
	}
	return calls, ok, sc.Err()
}

// runNginxRepetition is runRepetition against a fresh nginx (its limiter
// state new): the clients' exchanges give every request's send and answer
// at the client; the server's decision is taken halfway through an
// exchange answered at once, and one median such half after the send for
// a request nginx paced (its answer waits for its delay). Calls are the
// requests in nginx's access log, which must be every exchange.
func runNginxRepetition(ctx context.Context, cs caseSpec, trace bool) (repetition, error) {
	// A busy machine can keep a new nginx from answering in time, or take
	// its port between freePort and nginx's bind: try three times.
	var srv *nginxServer
	var err error
	for try := 0; try < 3 && ctx.Err() == nil; try++ {
		if srv, err = startNginx(ctx, *cs.nginx); err == nil {
			break
		}
	}
	if err != nil {
		return repetition{}, err
	}
	defer srv.remove()
	clients, errs := releaseClients(ctx, cs, srv.url())
	if err := ctx.Err(); err != nil {
		return repetition{}, fmt.Errorf("%s: %w", cs, err)
	}
	srv.stop() // flushes its log
	calls, ok, err := srv.accessLog()
	if err != nil {
		return repetition{}, err
	}
	var exchanges, served int64
	for i, c := range clients {
		exchanges += int64(len(*c.exchanges))
		if errs[i] == nil {
			served++
		}
	}
	if calls != exchanges || ok != served {
		return repetition{}, fmt.Errorf("%s: nginx logged %d requests (%d answered 200), the clients made %d (%d served)", cs, calls, ok, exchanges, served)
	}
	return nginxRequests(cs, clients, errs, calls, trace), nil
}

// nginxRequests builds a repetition from the clients' exchanges (see
// runNginxRepetition), times from the first decision.
func nginxRequests(cs caseSpec, clients []*client, errs []error, calls int64, trace bool) repetition {
	// half is the median half exchange answered at once: the rejected
	// ones (and every one with nodelay).
	var halves []time.Duration
	for i, c := range clients {
		for j, x := range *c.exchanges {
			if errs[i] != nil || j < len(*c.exchanges)-1 || cs.nginx.nodelay {
				halves = append(halves, x.answered.Sub(x.sent)/2)
			}
		}
	}
	slices.Sort(halves)
	var half time.Duration
	if len(halves) > 0 {
		half = halves[len(halves)/2]
	}
	type raw struct {
		client, attempt         int
		sent, decided, answered time.Time
		admitted                bool
		delay                   time.Duration
	}
	var all []raw
	origin := time.Time{}
	for i, c := range clients {
		for j, x := range *c.exchanges {
			admitted := errs[i] == nil && j == len(*c.exchanges)-1
			decided := x.sent.Add(x.answered.Sub(x.sent) / 2)
			if admitted && !cs.nginx.nodelay {
				decided = x.sent.Add(min(half, x.answered.Sub(x.sent)))
			}
			d := time.Duration(-1)
			if j < len(c.delays) {
				d = c.delays[j]
			}
			all = append(all, raw{i, j, x.sent, decided, x.answered, admitted, d})
			if origin.IsZero() || decided.Before(origin) {
				origin = decided
			}
		}
	}
	r := repetition{calls: calls}
	byClient := make([][]request, len(clients))
	for _, x := range all {
		q := request{client: x.client, attempt: x.attempt, sent: x.sent.Sub(origin), entered: x.decided.Sub(origin),
			decided: x.decided.Sub(origin), answered: x.answered.Sub(origin), admitted: x.admitted, delay: x.delay}
		byClient[x.client] = append(byClient[x.client], q)
		switch { // herd's completion: the last answer the server gave
		case x.admitted && cs.nginx.nodelay:
			r.completion = max(r.completion, q.decided)
		case x.admitted:
			r.completion = max(r.completion, q.answered-half)
		}
	}
	var traced [][]request
	for i, c := range clients {
		if errs[i] != nil {
			r.gaveUp++
		} else {
			r.served++
		}
		if n := len(*c.exchanges); n == 0 || n != len(c.delays)+1 {
			r.unaligned++
			continue
		}
		traced = append(traced, byClient[i])
	}
	r.measure(traced)
	if trace {
		for _, rs := range traced {
			r.requests = append(r.requests, rs...)
		}
	}
	return r
}
