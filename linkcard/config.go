package linkcard

import "time"

// Config holds the fetcher's settings; the serve command maps its flags and
// environment onto it. The zero value of each field means its default.
type Config struct {
	// UserAgent replaces the default, which names Tributary and Contact.
	UserAgent string
	// Contact is a URL where a site's operator learns who fetches and how to
	// reach them (the instance's about page); it goes in the User-Agent.
	Contact string
	// Ports the fetcher may connect to; default 80 and 443.
	Ports []uint16
	// ConnectTo rules (--fetch-connect-to, TRIBUTARY_FETCH_CONNECT_TO).
	// Only a connection made through one may reach an address the policy
	// refuses, such as loopback: the operator named it.
	ConnectTo []ConnectTo
	// ExtraCA is a PEM file of extra trusted roots (--fetch-ca, TRIBUTARY_FETCH_CA).
	ExtraCA string
	// AllowNAT64 allows 64:ff9b::/96, judged by the IPv4 address it embeds.
	AllowNAT64 bool

	ConnectTimeout time.Duration // default 5 s
	Timeout        time.Duration // per request, redirects and body included; default 10 s
	MaxRedirects   int           // default 3
	MaxHTML        int64         // default 1 MiB
	MaxJSON        int64         // oEmbed, CSL-JSON and API answers; default 256 KiB

	// Politeness spaces requests per host; default an in-memory one.
	Politeness Politeness
}

func (c Config) withDefaults() Config {
	switch {
	case c.UserAgent != "":
	case c.Contact != "":
		c.UserAgent = "Tributary/1.0 (link cards; +" + c.Contact + ")"
	default:
		c.UserAgent = "Tributary/1.0 (link cards)"
	}
	if len(c.Ports) == 0 {
		c.Ports = []uint16{80, 443}
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = 3
	}
	if c.MaxHTML <= 0 {
		c.MaxHTML = 1 << 20
	}
	if c.MaxJSON <= 0 {
		c.MaxJSON = 256 << 10
	}
	if c.Politeness == nil {
		c.Politeness = NewMemoryPoliteness(nil)
	}
	return c
}
