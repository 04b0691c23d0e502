package seed

// Word lists the seeder builds names, titles and comments from. Order matters: the
// generator indexes into them, so editing a list changes every seeded dataset.

var seedFirstNames = []string{
	"Aiko", "Amara", "Amir", "Ana", "Anders", "Andrea", "Anika", "Arjun", "Asha", "Ayesha",
	"Bao", "Beatriz", "Ben", "Bianca", "Bilal", "Camille", "Carlos", "Chen", "Chidi", "Chloe",
	"Claire", "Dalia", "Daniel", "Daria", "David", "Deepa", "Diego", "Dmitri", "Elena", "Elif",
	"Emeka", "Emil", "Emma", "Erik", "Esther", "Fatima", "Felix", "Fernanda", "Finn", "Freya",
	"Gabriel", "Hana", "Hannah", "Hao", "Harish", "Helena", "Hiro", "Ibrahim", "Ines", "Ingrid",
	"Isaac", "Ivan", "Jakob", "Jana", "Javier", "Jia", "Jonas", "Jorge", "Julia", "Kai",
	"Kamala", "Karim", "Kasia", "Kenji", "Kofi", "Lars", "Laura", "Leila", "Lena", "Leo",
	"Li", "Lina", "Lucas", "Lucia", "Luis", "Maja", "Malik", "Mara", "Marco", "Maria",
	"Mateo", "Mei", "Mia", "Mikhail", "Min", "Mira", "Mohammed", "Nadia", "Naomi", "Nikhil",
	"Nina", "Noah", "Nora", "Oliver", "Omar", "Oscar", "Pablo", "Paolo", "Pavel", "Priya",
	"Rafael", "Rahul", "Ravi", "Rina", "Rosa", "Ruth", "Sakura", "Samir", "Sara", "Sean",
	"Selin", "Shreya", "Simone", "Sofia", "Sven", "Tariq", "Teresa", "Theo", "Tomas", "Uma",
	"Valentina", "Victor", "Wei", "Xin", "Yara", "Yuki", "Yusuf", "Zainab", "Zara", "Zoe",
}

var seedLastNames = []string{
	"Abebe", "Adeyemi", "Ahmed", "Alvarez", "Andersen", "Bauer", "Becker", "Bianchi", "Bose", "Brandt",
	"Castro", "Chandra", "Chen", "Costa", "Dubois", "Eriksson", "Fischer", "Fontaine", "Garcia", "Gupta",
	"Haddad", "Hansen", "Hoffmann", "Horvat", "Huang", "Ivanova", "Iyer", "Jansen", "Jensen", "Kaur",
	"Kim", "Kowalski", "Kumar", "Larsen", "Laurent", "Lee", "Lindgren", "Liu", "Lopez", "Mahmoud",
	"Martin", "Mendes", "Meyer", "Moreau", "Morales", "Mueller", "Murphy", "Nakamura", "Nguyen", "Nielsen",
	"Novak", "Nowak", "Okafor", "Okonkwo", "Olsen", "Ortiz", "Park", "Patel", "Pereira", "Petrov",
	"Popescu", "Quinn", "Rahman", "Ramos", "Rao", "Reyes", "Rossi", "Russo", "Sato", "Schmidt",
	"Schneider", "Shah", "Silva", "Singh", "Sokolova", "Suzuki", "Tanaka", "Torres", "Tran", "Varga",
	"Vasquez", "Volkov", "Wagner", "Walsh", "Wang", "Weber", "Wong", "Wu", "Yamamoto", "Yang",
	"Yilmaz", "Zhang", "Zhao", "Zhou", "Zielinski",
}

// seedNickWords make the handles of people who do not go by their name.
var seedNickWords = []string{
	"gradient", "tensor", "vector", "kernel", "sparse", "latent", "entropy", "bayes", "markov", "lambda",
	"sigma", "epoch", "token", "prior", "logit", "shard", "cache", "quant", "photon", "qubit",
	"neuron", "synapse", "lattice", "manifold", "tangent", "fourier", "monte", "carlo", "halting", "turing",
}

var seedNickSuffixes = []string{"descent", "wrangler", "nerd", "lab", "notes", "ml", "ai", "dev", "hacker", "fan", "club", "log"}

// seedTopic is a research area: its tag, the tasks titles are about, and nearby tags.
type seedTopic struct {
	tag     string
	tasks   []string
	related []string
}

var seedTopics = []seedTopic{
	{"llm", []string{"Language Modeling", "Instruction Following", "In-Context Learning", "Long-Context Reasoning", "Tool Use"}, []string{"nlp", "scaling", "agents"}},
	{"nlp", []string{"Machine Translation", "Question Answering", "Summarization", "Semantic Parsing", "Dialogue"}, []string{"llm", "datasets"}},
	{"vision", []string{"Image Segmentation", "Object Detection", "Video Understanding", "Depth Estimation", "Image Classification"}, []string{"multimodal", "datasets"}},
	{"diffusion", []string{"Image Generation", "Video Generation", "Text-to-3D Synthesis", "Audio Generation"}, []string{"vision", "generative"}},
	{"rl", []string{"Offline Reinforcement Learning", "Exploration", "Reward Modeling", "Multi-Agent Coordination"}, []string{"robotics", "alignment"}},
	{"agents", []string{"Web Navigation", "Software Engineering Agents", "Planning", "Computer Use"}, []string{"llm", "benchmarks"}},
	{"interpretability", []string{"Circuit Discovery", "Feature Attribution", "Sparse Autoencoders", "Mechanistic Interpretability"}, []string{"safety", "llm"}},
	{"alignment", []string{"Preference Optimization", "RLHF", "Scalable Oversight", "Reward Hacking"}, []string{"safety", "rl"}},
	{"efficiency", []string{"Quantization", "Speculative Decoding", "KV-Cache Compression", "Pruning", "Distillation"}, []string{"systems", "quantization"}},
	{"systems", []string{"Distributed Training", "LLM Serving", "GPU Kernels", "Memory Management"}, []string{"efficiency", "compilers"}},
	{"multimodal", []string{"Visual Question Answering", "Image Captioning", "Document Understanding", "Speech Recognition"}, []string{"vision", "llm"}},
	{"robotics", []string{"Manipulation", "Locomotion", "Sim-to-Real Transfer", "Imitation Learning"}, []string{"rl", "vision"}},
	{"biology", []string{"Protein Structure Prediction", "Single-Cell Genomics", "Drug Discovery", "Protein Design"}, []string{"science", "datasets"}},
	{"theory", []string{"Generalization", "Optimization Landscapes", "Sample Complexity", "Grokking"}, []string{"optimization", "math"}},
	{"optimization", []string{"Learning Rate Schedules", "Second-Order Optimization", "Training Stability"}, []string{"theory", "scaling"}},
	{"graphs", []string{"Graph Representation Learning", "Molecular Property Prediction", "Link Prediction"}, []string{"chemistry", "science"}},
	{"retrieval", []string{"Dense Retrieval", "Retrieval-Augmented Generation", "Reranking", "Search"}, []string{"llm", "nlp"}},
	{"safety", []string{"Jailbreak Defense", "Red Teaming", "Robustness", "Evaluation Awareness"}, []string{"alignment", "benchmarks"}},
	{"math", []string{"Theorem Proving", "Mathematical Reasoning", "Formal Verification"}, []string{"llm", "reasoning"}},
	{"science", []string{"Weather Forecasting", "Materials Discovery", "Climate Modeling", "Physics Simulation"}, []string{"graphs", "datasets"}},
}

var seedMethodHeads = []string{
	"Flash", "Sparse", "Hyper", "Mega", "Tiny", "Deep", "Meta", "Omni", "Uni", "Poly",
	"Neuro", "Quant", "Lumen", "Orca", "Falcon", "Heron", "Kestrel", "Atlas", "Nova", "Zephyr",
	"Aurora", "Cobalt", "Ember", "Helix", "Iris", "Juniper", "Lyra", "Mosaic", "Nimbus", "Prism",
	"Quill", "Raven", "Sable", "Tango", "Vega", "Willow", "Xeno", "Yarrow", "Zenith", "Ripple",
}

var seedMethodTails = []string{
	"Former", "Net", "MoE", "Diff", "RL", "Bench", "Gen", "Flow", "Mix", "Align",
	"Seg", "Vox", "Code", "Mind", "Graph", "LM", "Attn", "Prover", "Agent", "Fold",
}

var seedAdjectives = []string{
	"Scalable", "Efficient", "Robust", "Sparse", "Adaptive", "Hierarchical", "Causal", "Contrastive",
	"Self-Supervised", "Data-Efficient", "Provable", "Lightweight", "Unified", "Compositional",
	"Memory-Efficient", "Multilingual", "Calibrated", "Interpretable", "Recurrent", "Test-Time",
}

var seedNouns = []string{
	"Attention", "Mixture-of-Experts", "State Space Models", "Reward Models", "Tokenizers", "Embeddings",
	"Transformers", "Diffusion Models", "Value Functions", "World Models", "Preference Data", "Synthetic Data",
	"Curricula", "Routing", "Verifiers", "Chain-of-Thought", "Positional Encodings", "Normalization",
	"Sparse Autoencoders", "Memory", "Retrieval", "Search", "Scaling Laws", "Weight Decay",
}

var seedGerunds = []string{"Distilling", "Scaling", "Steering", "Compressing", "Rethinking", "Revisiting", "Training", "Probing", "Aligning", "Benchmarking"}

var seedModelSizes = []string{"0.5B", "1B", "1.5B", "3B", "7B", "8B", "13B", "14B", "32B", "70B"}
var seedModelSuffixes = []string{"", "-Instruct", "-Base", "-Chat", "-Coder", "-v0.2", "-GGUF", "-AWQ"}

var seedOrgs = []string{
	"lumen-labs", "openmind-ai", "kestrel-research", "northwind-ml", "bluefin-ai", "halcyon-lab",
	"polaris-nlp", "tidewater-ai", "quasar-research", "ironwood-labs", "meridian-ai", "corvid-ml",
	"saltmarsh-ai", "granite-research", "evergreen-nlp", "basalt-labs",
}

var seedDatasetNouns = []string{"instructions", "preferences", "math-problems", "code-reviews", "web-crawl", "captions", "dialogues", "proofs", "trajectories", "benchmarks"}

var seedBlogHosts = []string{
	"gradientnotes.substack.com", "latentspace.blog", "thesparseview.com", "bitsandtensors.dev", "mlcontrarian.com",
	"theattentionspan.substack.com", "kernelpanic.ai", "overfitted.net", "tokenomics.blog", "pretrainingdata.org",
}

var seedBlogTitles = []string{
	"A visual guide to %s", "What I learned %s %s", "Notes on %s", "%s, explained", "Why %s matter for %s",
	"The quiet case for %s", "A year of %s in production", "How we cut our %s bill in half", "%s from scratch",
	"Everything you wanted to know about %s",
}

var seedTweetTexts = []string{
	"New paper: %s 🧵", "%s — this is a big deal", "Thread on %s, the ablations are wild", "Finally out: %s",
	"Can't stop thinking about %s", "Our work %s is out!", "Reading group pick this week: %s",
	"Underrated: %s", "If you read one thing today: %s", "%s. Short thread below.",
}

var seedComments = []string{
	"Worth reading.", "The ablations are the best part.", "Code and weights are out.", "Surprisingly simple idea, strong results.",
	"Section 4 is the interesting bit.", "Not convinced by the eval, but the method is neat.", "Finally someone measured this.",
	"Reproduces on my setup.", "Long but worth it.", "Bookmarking for the reading group.", "Clear writing, solid baselines.",
	"Curious how this scales past 70B.", "The appendix has the real results.", "Great figures.", "Strong baseline work, rare these days.",
	"This matches what we saw internally.", "Would love to see this on non-English data.", "The related-work section alone is worth it.",
	"Compute budget is modest, which makes it more convincing.", "Hot take: this will be standard in a year.",
}

// seedTags are generic tags added to some posts besides their topic's.
var seedTags = []string{"paper", "opensource", "datasets", "benchmarks", "tutorial", "reading-list", "scaling", "reasoning", "generative", "quantization", "compilers", "chemistry"}

// seedTalkLines are comments on a share: reactions, questions and takes.
var seedTalkLines = []string{
	"Great find, thanks for sharing.", "This is wild.", "Saving this for the weekend.", "Did not expect that result.",
	"Adding it to the reading list.", "Same experience here.", "The figures alone are worth a look.", "Is the code out yet?",
	"Does anyone know the compute budget?", "The baselines look undertuned to me.", "Really clean write-up.",
	"I'd love to see the failure cases.", "Tried it yesterday, works as advertised.", "Not sure the gains hold at scale.",
	"This deserves more attention.", "The appendix answers most of my questions.", "How does this compare to last year's approach?",
	"Anyone replicated this yet?", "Feels incremental, but useful.", "The dataset is the real contribution here.",
	"Been waiting for someone to try this.", "Weights are on the Hub already, nice.", "Wish they had released the eval harness.",
	"Read it twice, still not sure about section 3.", "Nice to see an honest limitations section.", "Bookmarked.",
	"The error bars are doing a lot of work here.", "Simple idea, well executed.", "Who has the GPUs to try this?",
	"This changes how I think about the problem.",
}

// seedTalkTaskLines take a task ("Summarization").
var seedTalkTaskLines = []string{
	"Has anyone tried this for %s?", "Finally some progress on %s.", "Would this transfer to %s?", "Big if true for %s.",
	"%s keeps getting more interesting.", "We hit the same wall in %s last year.", "Best %s paper I've read this month.",
}

// seedTalkNounLines take a lower-cased noun, plural or not ("reward models", "attention").
var seedTalkNounLines = []string{
	"Another reminder not to underestimate %s.", "Curious how much of the gain comes from the %s.",
	"Would like to see an ablation without the %s.", "Strong case for rethinking %s.", "Everyone is suddenly into %s.",
}

// seedTalkReplies answer an earlier commenter, after their @handle.
var seedTalkReplies = []string{
	"agreed, the baselines are weak.", "good point, I missed that.", "I tried it last week and it works.", "see section 3, they cover it.",
	"not sure, table 2 says otherwise.", "yes! Same here.", "thanks, that clears it up.", "fair, but the compute budget matters.",
	"do you have a link?", "it's in the appendix.", "the code is linked from the paper.", "I think that's the point of the paper.",
	"exactly my reaction.", "which setup did you use?",
}

// seedTalkToAuthor address a post's author, after their @handle.
var seedTalkToAuthor = []string{
	"thanks for posting!", "where did you find this?", "did you try it yet?", "great pick.", "have you seen the follow-up?",
	"any thoughts on the eval?",
}

// seedTalkAuthorReplies are a post's author answering in their own thread, after an @handle.
var seedTalkAuthorReplies = []string{
	"glad it's useful!", "not yet, planning to this week.", "saw it on the arXiv listing.", "fair criticism.",
	"good question, I'll ask the authors.", "yes, the repo has a Colab.", "thanks! More on this soon.",
}

// seedTalkAuthorNotes are a post's author adding to their own share.
var seedTalkAuthorNotes = []string{
	"Some context: I reviewed an earlier version of this.", "Sharing mostly for the related work.",
	"Update: the authors posted a fix for the eval.", "Posting this because the ablations surprised me.",
	"To be clear, I haven't run it myself.",
}
