package views

import "strings"

// Device names the browser and system of a User-Agent for the sessions page ("Firefox on
// Linux"); what it cannot tell is "Unknown browser" or "an unknown system".
func Device(ua string) string {
	browser := firstMatch(ua, browsers, "Unknown browser")
	system := firstMatch(ua, systems, "an unknown system")
	return browser + " on " + system
}

type uaMatch struct{ token, name string }

// Order matters: Edge and Opera say Chrome too, Chrome says Safari, Android says Linux,
// iOS says Mac OS X.
var (
	browsers = []uaMatch{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"HeadlessChrome/", "Headless Chrome"},
		{"Chromium/", "Chromium"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}}
	systems = []uaMatch{{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Windows", "Windows"},
		{"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"}}
)

func firstMatch(ua string, ms []uaMatch, none string) string {
	for _, m := range ms {
		if strings.Contains(ua, m.token) {
			return m.name
		}
	}
	return none
}
