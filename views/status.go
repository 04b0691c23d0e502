package views

import "net/http"

// StatusTitle is the heading of an error page.
func StatusTitle(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusBadRequest:
		return "That didn't work"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusTooManyRequests:
		return "Slow down"
	case http.StatusRequestEntityTooLarge:
		return "Too much at once"
	case http.StatusServiceUnavailable:
		return "Back in a moment"
	}
	return "Something went wrong"
}
