package timeserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/diperf/diperf/internal/clock"
)

// dialTimeout bounds the TCP connection set-up.
const dialTimeout = 5 * time.Second

// Client probes one time server. It is not safe for concurrent use.
type Client struct {
	network, laddr, raddr string
	via                   DialFunc     // opens TCP connections (nil: plain TCP)
	udp                   *net.UDPConn // the socket, for "udp"
	tcp                   net.Conn     // the connection, for "tcp"; nil until (re)dialled
	lastT1                int64
	req                   [RequestSize]byte
	resp                  [readBufSize]byte
	oob                   [oobSize]byte
	auth                  *clientAuth // nil: unauthenticated
	refused               uint64      // replies that failed authentication
}

// Dial returns a Client of the time server at addr over network, "udp"
// or "tcp". A UDP socket asks the kernel for receive timestamps.
func Dial(network, addr string) (*Client, error) { return dial(network, "", addr) }

// DialFunc opens a stream connection to addr, e.g. a transport's Dial.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// DialVia is Dial whose TCP connections are opened by via (nil: plain
// TCP), so that a tester reaches a TCP time server the way it reaches its
// controller. UDP is always a UDP socket.
func DialVia(network, addr string, via DialFunc) (*Client, error) {
	return dialVia(network, "", addr, via)
}

// dial is Dial from the local address laddr ("" for any).
func dial(network, laddr, raddr string) (*Client, error) { return dialVia(network, laddr, raddr, nil) }

func dialVia(network, laddr, raddr string, via DialFunc) (*Client, error) {
	return dialAuth(network, laddr, raddr, via, nil)
}

// dialAuth is DialAuth from the local address laddr ("" for any).
func dialAuth(network, laddr, raddr string, via DialFunc, key *Key) (*Client, error) {
	c := &Client{network: network, laddr: laddr, raddr: raddr, via: via}
	AppendRequest(c.req[:0], 0)
	if key != nil {
		c.auth = newClientAuth(key)
	}
	var err error
	switch network {
	case "udp":
		err = c.dialUDP()
	case "tcp":
		err = c.dialTCP()
	default:
		err = fmt.Errorf("timeserver: network %q is neither udp nor tcp", network)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Client) dialUDP() error {
	var la *net.UDPAddr
	if c.laddr != "" {
		var err error
		if la, err = net.ResolveUDPAddr("udp", c.laddr); err != nil {
			return err
		}
	}
	ra, err := net.ResolveUDPAddr("udp", c.raddr)
	if err != nil {
		return err
	}
	if c.udp, err = net.DialUDP("udp", la, ra); err != nil {
		return err
	}
	if err := tuneUDP(c.udp, 0); err != nil {
		c.udp.Close()
		return err
	}
	return nil
}

func (c *Client) dialTCP() error {
	if c.via != nil {
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		defer cancel()
		conn, err := c.via(ctx, c.raddr)
		if err != nil {
			return err
		}
		c.tcp = conn
		return nil
	}
	d := net.Dialer{Timeout: dialTimeout}
	if c.laddr != "" {
		la, err := net.ResolveTCPAddr("tcp", c.laddr)
		if err != nil {
			return err
		}
		d.LocalAddr = la
	}
	conn, err := d.Dial("tcp", c.raddr)
	if err != nil {
		return err
	}
	c.tcp = conn
	return nil
}

// Close closes the socket or connection.
func (c *Client) Close() error {
	if c.udp != nil {
		return c.udp.Close()
	}
	if c.tcp != nil {
		return c.tcp.Close()
	}
	return nil
}

// Probe makes one exchange with the server, waiting at most timeout for
// the answer: T1 is clk's time just before the send, T4 the kernel's
// receive timestamp mapped by clk.AtWall when there is one (UDP), else
// clk's time right after the read.
func (c *Client) Probe(clk clock.Reader, timeout time.Duration) (clock.Probe, error) {
	if c.network == "udp" {
		return c.probeUDP(clk, timeout)
	}
	return c.probeTCP(clk, timeout)
}

// Burst makes n probes one after the other and returns those answered; it
// fails only if none was.
func (c *Client) Burst(clk clock.Reader, n int, timeout time.Duration) ([]clock.Probe, error) {
	if n < 1 {
		return nil, fmt.Errorf("timeserver: burst of %d probes", n)
	}
	ps := make([]clock.Probe, 0, n)
	refused := c.refused
	var last error
	for range n {
		p, err := c.Probe(clk, timeout)
		if err != nil {
			last = err
			continue
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, c.noAnswer(n, c.refused-refused, last)
	}
	return ps, nil
}

// nextT1 reads clk for a send time, made unique so that a late answer to
// an earlier probe can never be taken for this one's.
func (c *Client) nextT1(clk clock.Reader) int64 {
	t1 := max(clk.Now(), c.lastT1+1)
	c.lastT1 = t1
	binary.BigEndian.PutUint64(c.req[8:], uint64(t1))
	if c.auth != nil {
		c.auth.seal(c.req[:])
	}
	return t1
}

func (c *Client) probeUDP(clk clock.Reader, timeout time.Duration) (clock.Probe, error) {
	if err := c.udp.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return clock.Probe{}, err
	}
	t1 := c.nextT1(clk)
	if _, err := c.udp.Write(c.req[:]); err != nil {
		return clock.Probe{}, err
	}
	for {
		n, oobn, _, _, err := c.udp.ReadMsgUDP(c.resp[:], c.oob[:])
		t4 := clk.Now()
		if err != nil {
			return clock.Probe{}, err
		}
		rt1, t2, t3, err := ParseResponse(c.resp[:n])
		if err != nil || rt1 != t1 {
			continue // garbage, or a late answer to an earlier probe
		}
		if !c.authentic(c.resp[:n]) {
			continue // forged or altered on the path: counted
		}
		if ns, ok := kernelStamp(c.oob[:oobn]); ok {
			t4 = clk.AtWall(ns)
		}
		return clock.Probe{T1: t1, T2: t2, T3: t3, T4: t4}, nil
	}
}

// probeTCP makes a probe over the connection, (re)dialling it if needed; a
// failed probe drops the connection, whose stream may be out of step.
func (c *Client) probeTCP(clk clock.Reader, timeout time.Duration) (clock.Probe, error) {
	if c.tcp == nil {
		if err := c.dialTCP(); err != nil {
			return clock.Probe{}, err
		}
	}
	p, err := c.exchangeTCP(clk, timeout)
	if err != nil {
		c.tcp.Close()
		c.tcp = nil
	}
	return p, err
}

func (c *Client) exchangeTCP(clk clock.Reader, timeout time.Duration) (clock.Probe, error) {
	if err := c.tcp.SetDeadline(time.Now().Add(timeout)); err != nil {
		return clock.Probe{}, err
	}
	t1 := c.nextT1(clk)
	if _, err := c.tcp.Write(c.req[:]); err != nil {
		return clock.Probe{}, err
	}
	buf := c.resp[:ResponseSize]
	if _, err := io.ReadFull(c.tcp, buf); err != nil {
		return clock.Probe{}, err
	}
	t4 := clk.Now()
	rt1, t2, t3, err := ParseResponse(buf)
	if err != nil {
		return clock.Probe{}, err
	}
	if rt1 != t1 {
		return clock.Probe{}, errors.New("timeserver: answer out of step on TCP connection")
	}
	if !c.authentic(buf) {
		return clock.Probe{}, ErrRefused
	}
	return clock.Probe{T1: t1, T2: t2, T3: t3, T4: t4}, nil
}
