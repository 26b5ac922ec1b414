"""Go's `net/url` and `net/mail` where the server judges a URL or an email address as kube-apiserver (built with
Go 1.24) does: `url.py` (`url.Parse`, `url.ParseRequestURI`, `URL.String`, ...), `mail.py` (`mail.ParseAddress`),
`strconv.py` (`strconv.Quote`, which their errors print with). They work on the UTF-8 bytes of a text as Go does
and know nothing of the server's other rooms."""
