package tributary

import "testing"

func TestNotificationSummary(t *testing.T) {
	for _, c := range []struct {
		n    Notification
		want string
	}{
		{Notification{Type: "like", Actors: []string{"ada"}, Count: 1}, "@ada liked your post"},
		{Notification{Type: "like", Actors: []string{"ada", "bob"}, Count: 2}, "@ada and @bob liked your post"},
		{Notification{Type: "like", Actors: []string{"ada", "bob", "cy"}, Count: 5}, "@ada, @bob, @cy and 2 others liked your post"},
		{Notification{Type: "follow", Actors: []string{"ada"}, Count: 2}, "@ada and 1 other followed you"},
		{Notification{Type: "join_request", Actors: []string{"ada"}, Count: 1, Group: "ml"}, "@ada asked to join ml"},
	} {
		if got := c.n.Summary(); got != c.want {
			t.Errorf("Summary(%+v) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestNotificationCursor(t *testing.T) {
	c, err := ParseNotificationCursor("1700000000000000.42")
	if err != nil || c.ID != 42 {
		t.Fatalf("parse = %+v, %v", c, err)
	}
	if got, _ := ParseNotificationCursor(c.String()); got != c {
		t.Errorf("round trip = %+v, want %+v", got, c)
	}
	for _, bad := range []string{"x", "1.0", "1.", ".3"} {
		if _, err := ParseNotificationCursor(bad); ErrorCode(err) != EInvalid {
			t.Errorf("ParseNotificationCursor(%q) err = %v, want EInvalid", bad, err)
		}
	}
}
