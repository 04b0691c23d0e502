// Tributary's own front-end behaviour. Kept small: the server renders everything.
