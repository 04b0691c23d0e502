package tributary

// Table rows for anchor_test.go: real-world URL shapes, grouped by site.

type canonCase struct{ name, in, want string }

var canonCases = []canonCase{
	// Site-independent normalization.
	{"root", "https://example.com", "https://example.com"},
	{"root slash and http upgraded", "http://example.com/", "https://example.com"},
	{"upper-case scheme and host, path case kept", "HTTPS://Example.COM/Path", "https://example.com/Path"},
	{"www dropped, trailing slash dropped", "https://www.example.com/a/", "https://example.com/a"},
	{"m. dropped", "https://m.example.com/a", "https://example.com/a"},
	{"repeated www dropped", "https://www.www.example.com", "https://example.com"},
	{"www kept when it is the domain", "https://www.com/x", "https://www.com/x"},
	{"trailing dot in host", "https://example.com./a", "https://example.com/a"},
	{"duplicate slashes collapsed", "https://example.com/a//b///c/", "https://example.com/a/b/c"},
	{"dot segments resolved", "https://example.com/a/./b/../c", "https://example.com/a/c"},
	{"default https port dropped", "https://example.com:443/x", "https://example.com/x"},
	{"default http port dropped", "http://example.com:80/x", "https://example.com/x"},
	{"other port kept", "https://example.com:8080/x", "https://example.com:8080/x"},
	{"port leading zeros", "https://example.com:08080/x", "https://example.com:8080/x"},
	{"fragment dropped", "https://example.com/post#comments", "https://example.com/post"},
	{"surrounding space trimmed", "  https://example.com/x \n", "https://example.com/x"},
	{"utm params dropped", "https://example.com/post?utm_source=twitter&utm_medium=social&utm_campaign=launch", "https://example.com/post"},
	{"params sorted, fbclid dropped", "https://example.com/post?b=2&a=1&fbclid=IwAR0abc", "https://example.com/post?a=1&b=2"},
	{"gclid and ref dropped", "https://example.com/post?gclid=1&ref=hn&id=7", "https://example.com/post?id=7"},
	{"tracking keys case-insensitive", "https://example.com/p?UTM_Source=x&q=go", "https://example.com/p?q=go"},
	{"escaped tracking key", "https://example.com/a?utm%5Fsource=x", "https://example.com/a"},
	{"assorted trackers", "https://example.com/a?_hsenc=x&_hsmi=y&mkt_tok=z&si=q&igshid=w&mc_cid=1&mc_eid=2&spm=a.b&yclid=9&msclkid=m&dclid=d", "https://example.com/a"},
	{"prefix trackers", "https://example.com/a?oly_enc_id=1&trkCampaign=x&pk_campaign=y&vero_id=v&__s=s&ref_src=twsrc", "https://example.com/a"},
	{"s kept off x.com", "https://example.com/?s=search+term", "https://example.com?s=search+term"},
	{"same-key order kept", "https://example.com/search?q=b&a=1&q=a", "https://example.com/search?a=1&q=b&q=a"},
	{"empty query dropped", "https://example.com/?", "https://example.com"},
	{"empty pairs dropped", "https://example.com/x?&&a=1&", "https://example.com/x?a=1"},
	{"flag and empty value kept apart", "https://example.com/?flag&x=", "https://example.com?flag&x="},
	{"unreserved escapes decoded", "https://example.com/%7euser/%41bc", "https://example.com/~user/Abc"},
	{"reserved escapes kept, hex upper-cased", "https://example.com/a%2fb", "https://example.com/a%2Fb"},
	{"escaped utf-8 upper-cased", "https://example.com/caf%c3%a9", "https://example.com/caf%C3%A9"},
	{"raw utf-8 path escaped", "https://example.com/café", "https://example.com/caf%C3%A9"},
	{"space in path escaped", "https://example.com/a b", "https://example.com/a%20b"},
	{"query escapes normalized", "https://example.com/s?q=%e2%9c%93&r=%2d", "https://example.com/s?q=%E2%9C%93&r=-"},
	{"stray percent in query escaped", "https://example.com/s?q=100%", "https://example.com/s?q=100%25"},
	{"index.html dropped", "https://example.com/docs/index.html", "https://example.com/docs"},
	{"root index.html dropped", "https://example.com/index.html", "https://example.com"},
	{"IDN host to punycode", "https://bücher.de/katalog", "https://xn--bcher-kva.de/katalog"},
	{"upper-case IDN host", "https://www.BÜCHER.de", "https://xn--bcher-kva.de"},
	{"punycode host kept", "https://xn--bcher-kva.de/", "https://xn--bcher-kva.de"},
	{"co.uk blog", "https://blog.example.co.uk/2024/01/post.html?mc_cid=1", "https://blog.example.co.uk/2024/01/post.html"},
	{"substack", "https://author.substack.com/p/some-post?utm_source=substack&utm_medium=email&r=abc", "https://author.substack.com/p/some-post?r=abc"},

	// arXiv: one URL per testPaper, whatever the view or version.
	{"arxiv abs", "https://arxiv.org/abs/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv version dropped", "https://arxiv.org/abs/2401.12345v3", "https://arxiv.org/abs/2401.12345"},
	{"arxiv pdf with version and suffix", "https://arxiv.org/pdf/2401.12345v2.pdf", "https://arxiv.org/abs/2401.12345"},
	{"arxiv pdf no suffix", "https://arxiv.org/pdf/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv www and http", "http://www.arxiv.org/abs/1501.00001", "https://arxiv.org/abs/1501.00001"},
	{"arxiv 4-digit id", "https://arxiv.org/abs/0704.0001v1", "https://arxiv.org/abs/0704.0001"},
	{"arxiv html with fragment", "https://arxiv.org/html/2401.12345v1/#S3", "https://arxiv.org/abs/2401.12345"},
	{"arxiv html section page", "https://arxiv.org/html/2401.12345v1/S3.html", "https://arxiv.org/abs/2401.12345"},
	{"arxiv export mirror", "https://export.arxiv.org/abs/2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv old-style id", "https://arxiv.org/abs/hep-th/9901001v2", "https://arxiv.org/abs/hep-th/9901001"},
	{"arxiv old-style pdf", "https://arxiv.org/pdf/cs/0112017.pdf", "https://arxiv.org/abs/cs/0112017"},
	{"arxiv old-style subject class", "https://arxiv.org/abs/math.GT/0309136", "https://arxiv.org/abs/math/0309136"},
	{"arxiv query dropped", "https://arxiv.org/abs/2401.12345?context=cs.LG", "https://arxiv.org/abs/2401.12345"},
	{"arxiv prefixed id", "https://arxiv.org/abs/arXiv:2401.12345", "https://arxiv.org/abs/2401.12345"},
	{"arxiv listing untouched", "https://arxiv.org/list/cs.LG/recent/", "https://arxiv.org/list/cs.LG/recent"},
	{"alphaxiv keeps its URL", "https://www.alphaxiv.org/abs/2401.12345v2", "https://alphaxiv.org/abs/2401.12345v2"},

	// Hugging Face: host aliases only; sub-paths are distinct pages.
	{"hf model tree kept", "https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main", "https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main"},
	{"hf.co short host", "https://hf.co/Qwen/Qwen2.5-7B/", "https://huggingface.co/Qwen/Qwen2.5-7B"},
	{"hf papers", "https://huggingface.co/papers/2401.12345", "https://huggingface.co/papers/2401.12345"},

	// GitHub: owner and repo are case-insensitive.
	{"github repo lower-cased", "https://github.com/Owner/Repo/", "https://github.com/owner/repo"},
	{"github .git dropped", "https://github.com/owner/repo.git", "https://github.com/owner/repo"},
	{"github blob path case kept", "https://github.com/Owner/Repo/blob/Main/README.md", "https://github.com/owner/repo/blob/Main/README.md"},
	{"github readme tab dropped", "https://github.com/owner/repo?tab=readme-ov-file", "https://github.com/owner/repo"},
	{"github readme fragment dropped", "https://www.github.com/owner/repo#readme", "https://github.com/owner/repo"},
	{"github user page", "https://github.com/Torvalds", "https://github.com/torvalds"},
	{"github reserved page untouched", "https://github.com/features/Copilot", "https://github.com/features/Copilot"},

	// OpenReview: the id is the submission.
	{"openreview forum noteId dropped", "https://openreview.net/forum?id=AbC123xyz&noteId=Zz9", "https://openreview.net/forum?id=AbC123xyz"},
	{"openreview pdf to forum", "https://openreview.net/pdf?id=AbC123xyz", "https://openreview.net/forum?id=AbC123xyz"},
	{"openreview group untouched", "https://openreview.net/group?id=ICLR.cc/2024/Conference", "https://openreview.net/group?id=ICLR.cc/2024/Conference"},

	// DOI: case-insensitive, one resolver host.
	{"doi.org", "https://doi.org/10.1145/3442188.3445922", "https://doi.org/10.1145/3442188.3445922"},
	{"dx.doi.org lower-cased", "http://dx.doi.org/10.1038/NATURE14539", "https://doi.org/10.1038/nature14539"},
	{"doi with escaped slash", "https://doi.org/10.1000%2FXYZ", "https://doi.org/10.1000/xyz"},
	{"doi with odd characters", "https://doi.org/10.1002/(SICI)1097-4636(199601)30:1<1::AID-JBM1>3.0.CO;2-X", "https://doi.org/10.1002/(sici)1097-4636(199601)30:1%3C1::aid-jbm1%3E3.0.co;2-x"},
	{"publisher DOI link keeps its URL", "https://dl.acm.org/doi/10.1145/3442188.3445922", "https://dl.acm.org/doi/10.1145/3442188.3445922"},

	// X / Twitter status links.
	{"twitter status share params", "https://twitter.com/JaneDoe/status/1750000000000000000?s=20&t=AbCdEfGh", "https://x.com/janedoe/status/1750000000000000000"},
	{"x status photo", "https://x.com/JaneDoe/status/1750000000000000000/photo/1", "https://x.com/janedoe/status/1750000000000000000"},
	{"mobile twitter", "https://mobile.twitter.com/someone/status/123", "https://x.com/someone/status/123"},
	{"www twitter statuses", "https://www.twitter.com/someone/statuses/123", "https://x.com/someone/status/123"},
	{"i/web/status", "https://x.com/i/web/status/123", "https://x.com/i/status/123"},
	{"fxtwitter embed fixer", "https://fxtwitter.com/someone/status/123", "https://x.com/someone/status/123"},
	{"x profile share params dropped", "https://x.com/JaneDoe?s=21&t=abc", "https://x.com/JaneDoe"},

	// YouTube.
	{"youtube watch", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s&feature=share", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtu.be", "https://youtu.be/dQw4w9WgXcQ?si=abc", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube shorts", "https://m.youtube.com/shorts/dQw4w9WgXcQ", "https://youtube.com/watch?v=dQw4w9WgXcQ"},
	{"youtube channel", "https://www.youtube.com/@SomeChannel", "https://youtube.com/@SomeChannel"},
}

type deriveCase struct {
	name   string
	url    string
	linked []string
	anchor string
	kind   Kind
	sci    int
	hosts  []string
	count  int
}

const (
	testPaper = "https://arxiv.org/abs/2401.12345"
	testTweet = "https://x.com/someone/status/1750000000000000000"
)

var deriveCases = []deriveCase{
	// Papers and their mirrors.
	{"arxiv abs", "https://arxiv.org/abs/2401.12345", nil, testPaper, KindArxiv, 3, []string{"arxiv.org"}, 1},
	{"arxiv pdf version", "https://arxiv.org/pdf/2401.12345v2.pdf", nil, testPaper, KindArxiv, 3, []string{"arxiv.org"}, 1},
	{"arxiv old-style", "http://arxiv.org/pdf/hep-th/9901001v1", nil, "https://arxiv.org/abs/hep-th/9901001", KindArxiv, 3, []string{"arxiv.org"}, 1},
	{"arxiv listing is no testPaper", "https://arxiv.org/list/cs.LG/recent", nil, "https://arxiv.org/list/cs.LG/recent", KindArxiv, 3, []string{"arxiv.org"}, 1},
	{"alphaxiv anchors to arxiv", "https://alphaxiv.org/overview/2401.12345v1", nil, testPaper, KindArxiv, 3, []string{"alphaxiv.org"}, 1},

	// Hugging Face.
	{"hf model tree", "https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main", nil, "https://huggingface.co/meta-llama/Llama-3.1-8B", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf model file", "https://huggingface.co/openai/whisper-large-v3/blob/main/config.json", nil, "https://huggingface.co/openai/whisper-large-v3", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf model resolve", "https://hf.co/Qwen/Qwen2.5-7B/resolve/main/model.safetensors?download=true", nil, "https://huggingface.co/Qwen/Qwen2.5-7B", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf dataset viewer", "https://huggingface.co/datasets/HuggingFaceFW/fineweb/viewer/default/train", nil, "https://huggingface.co/datasets/HuggingFaceFW/fineweb", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf space file", "https://huggingface.co/spaces/org/demo/blob/main/app.py", nil, "https://huggingface.co/spaces/org/demo", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf papers anchor to arxiv", "https://huggingface.co/papers/2401.12345", nil, testPaper, KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf org page", "https://huggingface.co/meta-llama", nil, "https://huggingface.co/meta-llama", KindHuggingFace, 3, []string{"huggingface.co"}, 1},
	{"hf blog", "https://huggingface.co/blog/smollm", nil, "https://huggingface.co/blog/smollm", KindHuggingFace, 3, []string{"huggingface.co"}, 1},

	// GitHub.
	{"github blob", "https://github.com/Karpathy/nanoGPT/blob/master/train.py", nil, "https://github.com/karpathy/nanogpt", KindGitHub, 1, []string{"github.com"}, 1},
	{"github tree", "https://github.com/karpathy/nanoGPT/tree/master/config", nil, "https://github.com/karpathy/nanogpt", KindGitHub, 1, []string{"github.com"}, 1},
	{"github issue", "https://github.com/golang/go/issues/12345#issuecomment-1", nil, "https://github.com/golang/go", KindGitHub, 1, []string{"github.com"}, 1},
	{"github pull files", "https://github.com/golang/go/pull/678/files", nil, "https://github.com/golang/go", KindGitHub, 1, []string{"github.com"}, 1},
	{"github releases", "https://github.com/ollama/ollama/releases/tag/v0.1.0", nil, "https://github.com/ollama/ollama", KindGitHub, 1, []string{"github.com"}, 1},
	{"github clone URL", "https://github.com/ollama/ollama.git", nil, "https://github.com/ollama/ollama", KindGitHub, 1, []string{"github.com"}, 1},
	{"github user page", "https://github.com/Torvalds/", nil, "https://github.com/torvalds", KindGitHub, 1, []string{"github.com"}, 1},
	{"raw githubusercontent", "https://raw.githubusercontent.com/Org/Repo/main/README.md", nil, "https://github.com/org/repo", KindGitHub, 1, []string{"raw.githubusercontent.com"}, 1},
	{"gist is web", "https://gist.github.com/someone/abc123", nil, "https://gist.github.com/someone/abc123", KindWeb, 0, []string{"gist.github.com"}, 1},
	{"github.io is web", "https://karpathy.github.io/2015/05/21/rnn-effectiveness/", nil, "https://karpathy.github.io/2015/05/21/rnn-effectiveness", KindWeb, 0, []string{"karpathy.github.io"}, 1},

	// OpenReview and DOIs.
	{"openreview pdf", "https://openreview.net/pdf?id=AbC123xyz", nil, "https://openreview.net/forum?id=AbC123xyz", KindOpenReview, 3, []string{"openreview.net"}, 1},
	{"openreview forum", "https://openreview.net/forum?id=AbC123xyz&noteId=Q", nil, "https://openreview.net/forum?id=AbC123xyz", KindOpenReview, 3, []string{"openreview.net"}, 1},
	{"doi.org", "https://doi.org/10.1145/3442188.3445922", nil, "https://doi.org/10.1145/3442188.3445922", KindDOI, 3, []string{"doi.org"}, 1},
	{"acm doi", "https://dl.acm.org/doi/10.1145/3442188.3445922", nil, "https://doi.org/10.1145/3442188.3445922", KindDOI, 3, []string{"dl.acm.org"}, 1},
	{"acm pdf", "https://dl.acm.org/doi/pdf/10.1145/3442188.3445922", nil, "https://doi.org/10.1145/3442188.3445922", KindDOI, 3, []string{"dl.acm.org"}, 1},
	{"springer article", "https://link.springer.com/article/10.1007/s10994-021-05946-3", nil, "https://doi.org/10.1007/s10994-021-05946-3", KindDOI, 3, []string{"link.springer.com"}, 1},
	{"springer pdf", "https://link.springer.com/content/pdf/10.1007/s10994-021-05946-3.pdf", nil, "https://doi.org/10.1007/s10994-021-05946-3", KindDOI, 3, []string{"link.springer.com"}, 1},
	{"springer chapter", "https://link.springer.com/chapter/10.1007/978-3-030-58452-8_13", nil, "https://doi.org/10.1007/978-3-030-58452-8_13", KindDOI, 3, []string{"link.springer.com"}, 1},
	{"wiley full", "https://onlinelibrary.wiley.com/doi/full/10.1002/anie.201915678", nil, "https://doi.org/10.1002/anie.201915678", KindDOI, 3, []string{"onlinelibrary.wiley.com"}, 1},
	{"wiley old view suffix", "https://onlinelibrary.wiley.com/doi/10.1002/anie.201915678/abstract", nil, "https://doi.org/10.1002/anie.201915678", KindDOI, 3, []string{"onlinelibrary.wiley.com"}, 1},
	{"plos query id", "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0123456", nil, "https://doi.org/10.1371/journal.pone.0123456", KindDOI, 3, []string{"journals.plos.org"}, 1},
	{"nature article", "https://www.nature.com/articles/s41586-021-03819-2", nil, "https://doi.org/10.1038/s41586-021-03819-2", KindDOI, 3, []string{"nature.com"}, 1},
	{"science", "https://www.science.org/doi/10.1126/science.abj8754", nil, "https://doi.org/10.1126/science.abj8754", KindDOI, 3, []string{"science.org"}, 1},
	{"aps mixed case", "https://journals.aps.org/prl/abstract/10.1103/PhysRevLett.116.061102", nil, "https://doi.org/10.1103/physrevlett.116.061102", KindDOI, 3, []string{"journals.aps.org"}, 1},
	{"biorxiv full pdf", "https://www.biorxiv.org/content/10.1101/2023.01.01.522000v2.full.pdf", nil, "https://doi.org/10.1101/2023.01.01.522000", KindDOI, 3, []string{"biorxiv.org"}, 1},
	{"ieee is sci web", "https://ieeexplore.ieee.org/document/9000000", nil, "https://ieeexplore.ieee.org/document/9000000", KindWeb, 3, []string{"ieeexplore.ieee.org"}, 1},
	{"acl anthology", "https://aclanthology.org/2023.acl-long.1/", nil, "https://aclanthology.org/2023.acl-long.1", KindWeb, 3, []string{"aclanthology.org"}, 1},
	{"neurips proceedings", "https://proceedings.neurips.cc/paper_files/testPaper/2023/hash/abc-Abstract-Conference.html", nil, "https://proceedings.neurips.cc/paper_files/testPaper/2023/hash/abc-Abstract-Conference.html", KindWeb, 3, []string{"proceedings.neurips.cc"}, 1},
	{"google scholar", "https://scholar.google.com/citations?user=abc&hl=en", nil, "https://scholar.google.com/citations?hl=en&user=abc", KindWeb, 3, []string{"scholar.google.com"}, 1},
	{"distill", "https://distill.pub/2020/circuits/zoom-in/", nil, "https://distill.pub/2020/circuits/zoom-in", KindWeb, 3, []string{"distill.pub"}, 1},
	{"semantic scholar", "https://www.semanticscholar.org/testPaper/abc123", nil, "https://semanticscholar.org/testPaper/abc123", KindWeb, 3, []string{"semanticscholar.org"}, 1},

	// Posts that link other resources: the best-ranked one is the anchor.
	{"tweet linking a testPaper and a repo", "https://twitter.com/Someone/status/1750000000000000000?s=20&t=x",
		[]string{"https://github.com/karpathy/nanoGPT", "https://arxiv.org/pdf/2401.12345v2"},
		testPaper, KindTweet, 3, []string{"arxiv.org", "github.com", "x.com"}, 3},
	{"blog linking a repo", "https://blog.example.com/post",
		[]string{"https://github.com/Org/Repo/tree/main/src"},
		"https://github.com/org/repo", KindWeb, 1, []string{"blog.example.com", "github.com"}, 2},
	{"blog linking nothing", "https://www.blog.example.com/post/?utm_source=x", nil,
		"https://blog.example.com/post", KindWeb, 0, []string{"blog.example.com"}, 1},
	{"tweet linking nothing", "https://x.com/someone/status/1750000000000000000/photo/1", nil,
		testTweet, KindTweet, 0, []string{"x.com"}, 1},
	{"tweet linking a blog", testTweet, []string{"https://blog.example.com/post?utm_campaign=x"},
		"https://blog.example.com/post", KindTweet, 0, []string{"blog.example.com", "x.com"}, 2},
	{"blog embedding a tweet", "https://blog.example.com/post", []string{testTweet},
		"https://blog.example.com/post", KindWeb, 0, []string{"blog.example.com", "x.com"}, 2},
	{"quote tweet stays itself", testTweet, []string{"https://twitter.com/other/status/42"},
		testTweet, KindTweet, 0, []string{"x.com"}, 2},
	{"tweet with media and shortener", testTweet, []string{"https://t.co/AbCdE", "https://pic.twitter.com/xyz"},
		testTweet, KindTweet, 0, []string{"pic.twitter.com", "t.co", "x.com"}, 3},
	{"tweet linking a profile", testTweet, []string{"https://x.com/other"},
		testTweet, KindTweet, 0, []string{"x.com"}, 2},
	{"HF page and arxiv of one testPaper", testTweet, []string{"https://huggingface.co/papers/2401.12345", "https://arxiv.org/abs/2401.12345v1"},
		testPaper, KindTweet, 3, []string{"arxiv.org", "huggingface.co", "x.com"}, 3},
	{"duplicate links counted once", "https://blog.example.com/post", []string{"https://github.com/a/b", "https://github.com/A/B/", "https://blog.example.com/post#top"},
		"https://github.com/a/b", KindWeb, 1, []string{"blog.example.com", "github.com"}, 2},
	{"invalid links ignored", testTweet, []string{"javascript:alert(1)", "not a url", "", "https://localhost/x", "https://arxiv.org/abs/2401.12345"},
		testPaper, KindTweet, 3, []string{"arxiv.org", "x.com"}, 2},
	{"repo linking its testPaper", "https://github.com/org/repo", []string{"https://arxiv.org/abs/2401.12345"},
		testPaper, KindGitHub, 3, []string{"arxiv.org", "github.com"}, 2},
	{"testPaper linking its repo", "https://arxiv.org/abs/2401.12345", []string{"https://github.com/org/repo"},
		testPaper, KindArxiv, 3, []string{"arxiv.org", "github.com"}, 2},
	{"model card linking its testPaper", "https://huggingface.co/org/model", []string{"https://arxiv.org/abs/2401.12345"},
		testPaper, KindHuggingFace, 3, []string{"arxiv.org", "huggingface.co"}, 2},
	{"blog linking model and repo", "https://blog.example.com/post", []string{"https://github.com/org/repo", "https://huggingface.co/org/model/tree/main"},
		"https://huggingface.co/org/model", KindWeb, 3, []string{"blog.example.com", "github.com", "huggingface.co"}, 3},
	{"blog linking doi and repo", "https://blog.example.com/post", []string{"https://doi.org/10.1145/1", "https://github.com/org/repo"},
		"https://github.com/org/repo", KindWeb, 3, []string{"blog.example.com", "doi.org", "github.com"}, 3},
	{"blog linking doi and openreview", "https://blog.example.com/post", []string{"https://dl.acm.org/doi/10.1145/1", "https://openreview.net/pdf?id=X1"},
		"https://openreview.net/forum?id=X1", KindWeb, 3, []string{"blog.example.com", "dl.acm.org", "openreview.net"}, 3},
	{"blog linking a github profile", "https://blog.example.com/about", []string{"https://github.com/author"},
		"https://blog.example.com/about", KindWeb, 1, []string{"blog.example.com", "github.com"}, 2},
	{"blog linking a sci page", "https://blog.example.com/post", []string{"https://ieeexplore.ieee.org/document/1"},
		"https://blog.example.com/post", KindWeb, 3, []string{"blog.example.com", "ieeexplore.ieee.org"}, 2},
	{"first of equal links wins", "https://x.com/a/status/1", []string{"https://blog.one.com/a", "https://blog.two.com/b"},
		"https://blog.one.com/a", KindTweet, 0, []string{"blog.one.com", "blog.two.com", "x.com"}, 3},
	{"youtube video", "https://youtu.be/dQw4w9WgXcQ?t=10", nil,
		"https://youtube.com/watch?v=dQw4w9WgXcQ", KindWeb, 0, []string{"youtube.com"}, 1},
	{"news article", "https://www.nytimes.com/2024/01/01/technology/ai.html?smid=tw-share&utm_source=twitter", nil,
		"https://nytimes.com/2024/01/01/technology/ai.html?smid=tw-share", KindWeb, 0, []string{"nytimes.com"}, 1},
}

type invalidCase struct{ name, in, reason string }

var invalidCases = []invalidCase{
	{"empty", "", "url is empty"},
	{"blank", "  \t ", "url is empty"},
	{"no scheme", "example.com/page", "url must start with http:// or https://"},
	{"missing colon", "http//example.com", "url must start with http:// or https://"},
	{"javascript", "javascript:alert(1)", "url must start with http:// or https://"},
	{"javascript with slashes", "javascript://example.com/%0Aalert(1)", "url must start with http:// or https://"},
	{"ftp", "ftp://example.com/file.txt", "url must start with http:// or https://"},
	{"mailto", "mailto:someone@example.com", "url must start with http:// or https://"},
	{"data", "data:text/html,<b>hi</b>", "url must start with http:// or https://"},
	{"single slash", "https:/example.com", "url must start with http:// or https://"},
	{"scheme only", "https://", "url has no host"},
	{"no host with path", "https:///path", "url has no host"},
	{"port only", "http://:80/x", "url has no host"},
	{"space in host", "https://exa mple.com/", "invalid host"},
	{"backslash in host", "https://example.com\\@evil.com/", "invalid host"},
	{"localhost", "https://localhost:8080/", "invalid host"},
	{"dotless host", "https://intranet/", "invalid host"},
	{"ipv4", "https://127.0.0.1/", "invalid host"},
	{"ipv6", "https://[::1]/", "invalid host"},
	{"local tld", "https://printer.local/x", "invalid host"},
	{"underscore host", "https://exa_mple.com", "invalid host"},
	{"leading hyphen label", "https://-bad.com", "invalid host"},
	{"empty label", "https://a..b.com", "invalid host"},
	{"bad port", "https://example.com:99999/", "invalid port"},
	{"too long", "https://example.com/" + testLongPath, "url is too long (max 2048)"},
	{"nul byte", "https://example.com/\x00", "url contains control characters"},
	{"newline inside", "https://example.com/a\nb", "url contains control characters"},
	{"credentials", "https://user:pass@example.com/", "url must not contain a user name or password"},
	{"bad escape", "https://example.com/%zz", "url is malformed"},
}
