"""Every limit of attnviz, in one place.

Two tiers:

* ``MAX_TOKENS`` and ``MAX_D_*`` bound what the app lets a user ask for. They keep every page
  responsive (a rerun at the maximum stays within about two seconds on one core) and are told to
  the user when hit.
* ``MAX_CORE_N`` and ``MAX_CORE_DIM`` bound what the numpy core accepts from code (benchmarks,
  the real-model page). Past them the (n, n) matrices alone would not fit in a small machine.
"""

import os

# What the app offers (sidebar, URL parameters, uploaded text).
MAX_TOKENS = 512  # tokens in one sequence, n
MAX_D_MODEL = 512  # embedding width, d_model
MAX_D_K = 512  # query/key width, d_k
MAX_D_V = 512  # value width, d_v
MAX_HEADS = 64  # heads in multi-head attention
MAX_SEED = 2**32 - 1  # seeds are unsigned 32-bit integers
MIN_TEMPERATURE = 0.01  # softmax temperature range offered by the app
MAX_TEMPERATURE = 100.0
MAX_TEXT_CHARS = 20_000  # characters in the text box / URL `tokens`
MAX_PAIR_CHARS = 200  # characters in one sentence of the real model's pair: one line each
SERVER_MB = 690  # the memory (RSS) a server may reach, in all: Community Cloud's documented floor
BASE_MB = 200  # a warmed server before any cache: Python, Streamlit, numpy, pandas, Plotly,
# attnviz and a few sessions (measured 170-200 MB, docs/performance.md)
WORKING_MB = 130  # arrays alive while pages compute and draw, outside every cache: each heavy
# slot's computation (a max-size example's 29 MB, the real model's 31 MB at 128 pieces, the chat
# model's generation) and the figures of the pages drawing at once (up to about 8 MB a 512 x 512
# heatmap as Plotly's lists)
MAX_CACHE_MB = SERVER_MB - BASE_MB - WORKING_MB  # 360 MB: everything attnviz keeps for every
# session, in all (attnviz/serve/store.py): the two real models (about 91 MB of MiniLM's weights;
# the chat model's 165 MB of 4-bit blocks from its GGUF, or 270 MB of bfloat16 from the Hub,
# released after CHAT_IDLE_SECONDS unused), their runs, the tiny GPT's runs, every page's
# results (an example at the limits is about 23 MB, at classroom sizes a few KB)
# Each cache's own bound, under MAX_CACHE_MB: (entries, MB)
CACHE_EXAMPLES = (16, 250)  # the sidebar's examples (attnviz/serve/example.py cached_example)
CACHE_MODEL = (1, 120)  # the real model itself: never evicted for another cache
CACHE_MODEL_RUNS = (6, 40)  # the real model's sentences: about 6 MB each at 128 pieces
CACHE_CHAT_MODEL = (1, 300)  # the chat model (SmolLM2: 165 MB from the GGUF, 270 MB from the
# Hub, as on Community Cloud): never evicted either
CACHE_GPT_RUNS = (8, 110)  # the tiny GPT's trained runs (4 choices, with and without scaling)
CACHE_FINISHED_CHARTS = (64, 80)  # charts drawn once for every session (attnviz/serve/finish.py
# kept_finished): a line chart's dict is tens of KB, the geometry page's figure, every frame
# in, about 2 MB
CACHE_GRID_FIGURES = (12, 40)  # each of the real and chat models' grids of every head and the tiny
# GPT's random heads, finished (dict, text alternative) per sentence or choice, projector mode and
# palette: up to 3 MB at 128 pieces
CACHE_BAR_FIGURES = (24, 4)  # the chat model's next-token bars, finished per (prompt's tokens and
# probabilities, projector mode, palette): a few KB each
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
HEAVY_AT_ONCE = max(1, CORES - 1)
# heavy computations that run at once (attnviz/serve/gate.py), one core fewer than the server has
# (at least one), so that a class's small changes keep a core; the rest queue. Measured on 2
# cores with 10 max-size links at once: an innocent change's p95 0.50-0.64 s with one slot,
# 0.76-1.10 s with two (docs/performance.md)
HEAVY_SMALL_AT_ONCE = 1  # short heavy work (at most SMALL_HEAVY_SECONDS: a default training,
# a class set's PDF, the real model's forward pass) runs in a lane of its own, so it never waits
# behind a max-size computation (attnviz/serve/fair_queue.py says why lanes and not priorities)
SMALL_HEAVY_SECONDS = 4.0  # every task's default training is at most 3.8 s (training.py's
# step_seconds); larger work, or work of unknown cost, goes to the large lane
CHAT_AT_ONCE = 1  # the chat model's computations that run at once (its reading, grid of heads,
# one head, a generation: attnviz/serve/gate.py's lane CHAT). Twenty largest links at once took
# a server to 1,025 MB with its reading and generation in the small and large lanes and its grid
# of heads in no queue (docs/performance.md)
HEAVY_PER_VISITOR = 1  # heavy computations one visitor may have queued or running, in all
HEAVY_BYTES = 16_000_000  # an example whose arrays may take this much is heavy: n = 512 with
# d_model = 512 (29 MB), not n = 512 with d_model = 8 (11 MB, about 0.3 s)
MAX_JSON_NUMBERS = 200_000  # numbers in the step page's JSON download (about 4 MB, 0.4 s to
# write); larger examples download as .npz (58 MB of JSON at the limits took 5 to 6 s)

MAX_EDIT_VALUE = 100.0  # largest |X_ic| typed in "Change one number" (embeddings are ~1)

# What the core accepts from code.
MAX_CORE_N = 8192  # one float64 (n, n) matrix at this size is 512 MiB
MAX_CORE_DIM = 8192

# Multi-head page (app_pages/Multi_head.py).
MAX_PAGE_HEADS = 12  # heads the page offers (BERT-base has 12); each keeps its (n, n) steps
MAX_GRID_CELLS = 800_000  # heads x n x n in the grid of heads: all 12 at n = 256, 3 at n = 512
MAX_EDIT_CELLS = 4096  # d_model x d_k cells in one hand-edited W_Q or W_K table

# Token lines (attnviz/charts/token_lines.py): the attention matrix as lines from query to key.
MAX_LINE_TOKENS = 128  # up to this many tokens every weight of at least half a step can draw
TOP_LINES_PER_QUERY = 8  # beyond it, only each query's this many largest weights can draw

# Tiled attention page (app_pages/Tiled_attention.py).
MAX_TILED_BLOCKS = 32  # blocks the page traces: each keeps an (n, d_v) running output

# Your-own-numbers page (app_pages/Your_own_numbers.py): matrices typed, pasted or uploaded.
MAX_OWN_N = 64  # rows of X (tokens)
MAX_OWN_DIM = 64  # d_model, d_k and d_v
MAX_OWN_TEXT_CHARS = 120_000  # one matrix's text: 64 x 64 numbers written in full fit
MAX_OWN_FILE_BYTES = 4 << 20  # one uploaded .npz or .json
MAX_OWN_URL_CHARS = 2000  # the four matrices go into the page's link only up to this length

# The real-model page (app_pages/Real_model.py). A forward pass makes every head's (n, n)
# matrices, about 31 MB at 128 word pieces (the page keeps 6 MB of it per sentence) and about
# 16 times as much at the model's own limit of 512.
MAX_MODEL_TOKENS = 128  # word pieces, [CLS] and [SEP] included; the rest of the text is cut
MODEL_RUN_SECONDS = 0.3  # CPU of its forward pass at 128 pieces (265 ms measured, one BLAS
# thread, docs/performance.md): the heavy queue's small lane (attnviz/serve/fair_queue.py)

# Watch a head learn (app_pages/Watch_a_head_learn.py): a tiny GPT trained in the page.
MAX_GPT_TEXT_CHARS = 2000  # the text task's training text (it also goes into the page's link)
MAX_GPT_VOCAB = 96  # different characters in that text: one row of W_E each
GPT_D_MODELS = (12, 24, 36, 48)  # d_model offered: each divides by 1, 2, 3 and 4 heads
MIN_GPT_STEPS = 10
MAX_GPT_STEPS = 3000  # training steps of one run
MAX_GPT_TRAIN_SECONDS = 20  # a run whose sizes and steps would take longer on one core is
# refused (attnviz/tiny_gpt/training.py step_seconds: from the sizes, not the clock)
MAX_GPT_QUEUE_SECONDS = 120  # every visitor's trainings running or queued, in all: a new run
# past it is refused until the queue shortens (trainings run one per core, attnviz/serve/gate.py)

# Attention as geometry (app_pages/Attention_as_geometry.py): 2-D queries and keys as arrows.
MIN_GEO_KEYS = 3  # keys (each with its value) in the page's table
MAX_GEO_KEYS = 6
MAX_GEO_COORD = 10.0  # largest |entry| of a key or value: the plane shows -10 .. 10 at most
GEO_ANGLES = 36  # query angles on the figure's own slider: 0°, 10°, ..., 350°
GEO_LENGTHS = (0.25, 0.5, 1.0, 2.0, 4.0)  # query lengths on its second slider, each doubling;
# the figure holds every (angle, length): 36 x 5 frames of at most 6 keys, about 0.2 MB of JSON
GEO_ROWS = 500  # random queries drawn at each d_k, each against GEO_ROW_KEYS random keys
GEO_ROW_KEYS = 4  # so 2000 random q . k; at d_k = 512 the draw holds about 5 MB of float32

# Inside a chat model (app_pages/Inside_a_chat_model.py): SmolLM2-135M-Instruct in numpy.
MAX_CHAT_TOKENS = 64  # tokens of the prompt read; the rest is cut, with a message
MAX_CHAT_GENERATED = 32  # tokens generated after it, one at a time through the KV cache
CHAT_RUN_SECONDS = 0.6  # CPU to read a prompt of up to MAX_CHAT_TOKENS (0.55 s measured at 64
# tokens, one BLAS thread, 2026-12-02): its cost in the heavy queue (attnviz/serve/fair_queue.py)
CHAT_TOKEN_SECONDS = 0.26  # CPU per generated token (2.06 s for 8, measured alike): 32 tokens
# are about 8 s, in the queue's large lane; up to 15, its small lane
CHAT_IDLE_SECONDS = 600  # the chat model (and its runs) leave the server's memory after this
# long unused; the next visitor loads it again (a few seconds)
MAX_CHAT_TOP_K = 1000  # the largest top-k offered (0 in a link: every token)
MIN_CHAT_TEMPERATURE = 0.1
MAX_CHAT_TEMPERATURE = 5.0

# Work it out (app_pages/Work_it_out.py, attnviz/exercises/): exercises made for hand computation.
EX_LEVELS = 5  # levels 1 (one score) to 5 (a full small A)
MAX_EX_TRIES = 5000  # draws from the seed before an exercise whose every answer is easy by hand
MAX_ANSWER_CHARS = 40  # characters of one typed answer
MAX_ANSWER_MAGNITUDE = 1_000_000  # a typed |answer| past this is refused (every answer is < 100)
MAX_CLASS_SET = 60  # worksheets (each its own seed) in one class-set PDF: a class of 60
PDF_SECONDS = 3.2  # CPU of a class set of 60 at most (0.6 to 3.2 s measured): its cost in the
# heavy queue's small lane (attnviz/serve/fair_queue.py); a one-sheet PDF a quarter of it
PDF_TIMEOUT_SECONDS = 120  # a PDF's compiler process is ended past this (a class set of 60
# takes about 3 s of CPU)

# A lecture deck (attnviz/links/deck.py, app_pages/Lecture_deck.py): slides in one link.
MAX_DECK_SLIDES = 60  # a 50-minute lecture is about 20
MAX_DECK_CHARS = 4000  # the deck= value read from a link (about 60 slides with settings)
# "Prepare the lecture" (attnviz/ui/lecture_prepare.py): the tiny GPT's runs a deck's Watch slides
# need, trained beforehand and pinned (never evicted) for the lecture, then released
LECTURE_PIN_SECONDS = 2 * 3600  # a lecture of 50 to 90 minutes, with time before it
MAX_LECTURE_RUNS = 4  # runs one deck may pin (13 MB each at the largest sizes)
MAX_PINNED_ENTRIES = 4  # pinned entries on a server at once, every lecture's: half the runs'
# cache (CACHE_GPT_RUNS) stays free for the other pages

# The classroom (app_pages/Classroom.py, attnviz/classroom/): rooms that a lecturer opens and
# students join from their phones. Every stored thing is bounded, in one store or in Redis.
MAX_ROOMS = 200  # rooms open at once in one store (one server, or one Redis); an idle room ends
# (ROOM_IDLE_SECONDS below), so it holds no place for long
MAX_ROOM_STUDENTS = 1000  # students who may join one room: a lecture hall
ROOM_LIFETIME_SECONDS = 4 * 3600  # a room, and every key it keeps, ends 4 hours after it opens
MAX_JOINS_PER_MINUTE = 10  # room codes that were no room one browser may try in a minute
# Room codes that were no room, from one client network in a minute: a lecture hall behind one
# NAT mistypes a few; past them the network's misses say so. A right code always joins (a
# classmate's guesses never lock a class out), so what holds a guesser is the codes' number
# (887 million) against the rooms open (MAX_ROOMS), and the lecturer's lock
MAX_CODE_GUESSES_PER_ADDRESS = 60
# Every per-address limit counts a network, not one address (classroom/bounds.network_of): an
# IPv4 /24 (a department's or a lecture hall's NAT pool), an IPv6 /64 (one household's or one
# Wi-Fi's prefix: a client can take any address of it)
IPV4_NETWORK_BITS = 24
IPV6_NETWORK_BITS = 64
# New students one network may bring into one room in JOIN_WINDOW_SECONDS, unless its lecturer
# set a larger class size (classroom/joins.network_burst: a hall behind one NAT then joins at
# once); past it the lecturer is told (a script, as a class joins slower), and the network's
# further joins wait for the window
JOIN_WINDOW_SECONDS = 60
MAX_NEW_STUDENTS_PER_NETWORK = 120
MAX_PASSPHRASE_TRIES_PER_MINUTE = 10  # staff passphrases one network may try in a minute
MAX_KEY_TRIES_PER_MINUTE = 10  # lecturer links one browser, or one network, may try in a minute
MAX_ANSWERS_PER_MINUTE = 30  # taps on an answer one browser may make in a minute
MAX_OPENS_PER_MINUTE = 5  # rooms one browser may open in a minute
# Rooms opened from one client network in a minute: a department's staff behind one NAT start
# their lectures at the hour, a few rooms at once and one more after a slip; a script that opens
# rooms from fresh sessions (196 in 668 s, issue 36) gets 6 a minute, and holds no more than
# MAX_ROOMS_PER_ADDRESS of them
MAX_OPENS_PER_ADDRESS = 6
# Rooms open at once that were opened from one client network (a closed room frees its place at
# once): a department teaching parallel sections behind one NAT holds a few (one lecture hall,
# one room); 10 leaves it room to spare, while one network holds no more than a twentieth of
# MAX_ROOMS
MAX_ROOMS_PER_ADDRESS = 10
# A room ends sooner than its lifetime when it is idle (no join, answer or change of the
# lecturer's; a poll is no activity), so a room left open, or opened only to be held, frees its
# place in MAX_ROOMS: a room nobody has joined after 15 minutes (a lecturer opens it as the class
# sits down), and any room after an hour without activity (a lecture asks something more often)
ROOM_IDLE_EMPTY_SECONDS = 15 * 60
ROOM_IDLE_SECONDS = 3600
MAX_ROOM_TEXT_CHARS = 300  # the pushed example's sentence (it is drawn on every phone)
MAX_ROOM_TOKENS = 12  # its tokens: the phones draw A, n x n, in one column of 390 px
MAX_ROOM_DIM = 64  # d_model, d_k and d_v of a pushed example
CACHE_ROOM_FIGURES = (48, 24)  # a room's peer-instruction charts, finished once for all its
# phones (a few hundred KB each)
CACHE_ROOM_ANSWERS = (16, 8)  # a room state's closed rounds, {round: {browser: answer}}, read
# once for all its phones (serve.classroom.closed_answers): 0.09 MB a round of 1,000 students
CACHE_QR_CODES = (32, 1)  # the rooms' QR codes as PNG, under 1 KB each
MAX_STORED_CHARS = 4000  # one stored room's state, as JSON; a room beyond it is refused
# Peer instruction (attnviz/classroom/rounds.py): vote, discuss, revote, then a twin question.
MAX_ROUNDS_PER_QUESTION = 3  # round 1, round 2 and the twin: answers are kept per round
MAX_QUESTIONS_PER_ROOM = 40  # questions one room asks (its report keeps one record each)
MAX_REPORT_RECORD_CHARS = 16_000  # one question's record in the report, as JSON
DISCUSS_CHOICES_SECONDS = (0, 60, 120, 180)  # the discussion's soft countdown: none, 1-3 min
LOST_WINDOW_SECONDS = 120  # the lecturer sees the "I'm lost" taps of the last two minutes
LOST_COOLDOWN_SECONDS = 60  # one student's "I'm lost" counts once a minute
MAX_LOST_MINUTES = ROOM_LIFETIME_SECONDS // 60  # the report's "I'm lost" counts, per minute
MAX_REPORT_ROWS = MAX_QUESTIONS_PER_ROOM * MAX_ROUNDS_PER_QUESTION + MAX_LOST_MINUTES + 1  # CSV
ENDED_ROOM_KEEP_SECONDS = 12 * 3600  # an ended room's record (its example, question and key
# digest, no answers) is kept this long after it ends: phones say it ended, and follow the room
# its lecturer reopens from it
MAX_KEPT_ROOMS = 10 * MAX_ROOMS  # rooms, open or ended, one in-process store keeps at most
PHONE_SEEN_SECONDS = 5  # a phone that polled its room this recently counts as connected now
# "Sketch the row" (attnviz/lessons/sketch.py): a phone sets each key's bar to a level, the
# bars renormalised to sum to 1; up to MAX_ROOM_TOKENS keys.
SKETCH_LEVELS = 5  # a bar takes 0, 1, ..., 5: six tap targets of 44 px or more in 390 px
MAX_SNAPSHOTS = 3  # anonymous sketches the projector shows side by side before the truth
MAX_SKETCH_GRID = 12  # sketches in the lecturer's grid of small multiples to pick from
STORE_START_SECONDS = 5  # at start, a server waits this long for ATTNVIZ_REDIS_URL's Redis
HEALTH_STORE_SECONDS = 1.0  # /api/health: a store that has not answered by then is unreachable
# The light phone page (attnviz/web/phone): a room's API over plain HTTP
MAX_PHONE_BODY_BYTES = 1024  # a phone's POST (an answer, a sketch of 12 levels) is far smaller
# A phone's request for the room's state waits this long for a change before it answers "the
# same": under PHONE_SEEN_SECONDS, so a waiting phone still counts as connected
PHONE_WAIT_SECONDS = PHONE_SEEN_SECONDS - 1
PHONE_WATCH_SECONDS = 0.2  # how often a room with waiting phones is read for a new version
