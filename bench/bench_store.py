"""Store benchmark: write throughput, reconcile and search latency at 1k / 10k / 100k memories.

Every memory goes into one searchable set (the global scope, its 500-memory quota raised with
`scope_limit`), so a search really covers N documents. The text is synthetic but shaped like
notes: a third Chinese, a third English, a third mixed, all from a fixed seed. English comes
from a Zipf-distributed vocabulary (function words on top, then real words, then made-up ones;
short technical terms such as "UI", "k8s" and "db" placed from common to rare ranks); Chinese
from a Zipf-distributed list of common words (function words such as 我们 on top, then real
2-4 character words, then made-up compounds of common characters, so that, as in real text,
most words are rare).

For each size it measures:
- bulk write throughput through `MemoryStore.apply_batch` (batches of --batch);
- cold reconcile: the index file deleted, `MemoryStore.open` rebuilds it from the files;
- warm reconcile: `store.reconcile()` and `MemoryStore.open()` on an up-to-date store;
- search latency (`limit=10`, `include_all_projects=True`) for four query kinds, beside one
  raw FTS5 MATCH query for the same terms on the same database file (Python's sqlite3,
  `ORDER BY rank LIMIT 10`):
    en_multi  2-4 English content words   raw: memory_fts (unicode61), OR of the quoted terms
    en_short  1-3 letter term ("UI")      raw: memory_fts (unicode61), the quoted term
    zh_phrase 2-3 Chinese content words   raw: memory_search bigram columns, OR of its bigrams
              written together (4+ chars)
    zh_word2  2-character Chinese word    raw: memory_search bigram columns, the bigram
  Queries are drawn from the words of random documents (so common words are asked often), with
  function words left out as for English; a phrase that includes a word like 我们 is reported
  separately (zh_common), as is a word that occurs nowhere (no_hit).
  unicode61 reads a run of Chinese characters as one token, so MATCH on memory_fts finds no
  Chinese word inside a sentence (it returns nothing, which would be a meaningless "fast"
  baseline), and the trigram table cannot match a 2-character term on SQLite 3.40.1
  (TOOLCHAIN 5). The bigram columns of memory_search are the one FTS5 index on this file that
  answers these queries, so the raw Chinese query is a plain MATCH on them with FTS5's default
  rank. `ours_sql` is also timed: the exact MATCH our search sends (its bm25 weights, its
  candidate LIMIT), which separates SQLite's share of our latency from Python's. Every timing
  is also taken as CPU time of this process, which other programs on the machine disturb less.

Above --max-batch-build memories (default 10,000) the store is not filled through apply_batch:
at 100-160 memories/s (slower as the one scope grows) 100k would take 15-20 minutes. Its files
are written directly with the package's own renderer (byte for byte what apply_batch writes,
timestamps aside), and the cold open that indexes them is the cold-reconcile figure. Write
speed at that size is measured by --extra-writes further memories added through apply_batch to
the full store (done for every size, after the searches, so the searches see exactly N).

--project-sizes adds a variant closer to real use: N memories in projects of 500 (the real
quota), each query searching the project of the document it came from.

    .venv/bin/python bench/bench_store.py --sizes 1000 10000 100000 --project-sizes 10000 \
        100000 --out bench/out/store.json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchenv import machine_info, package_state

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.requests import BatchItem, BatchRequest, SearchRequest
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store import search as search_module
from liveagent_memory.store.evidence import FrontMatter, MemoryDocument, render_document
from liveagent_memory.store.files import Layout
from liveagent_memory.store.markers import write_workdir_marker
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import fts_quote, run_bigrams

INDEX_NAME = config.INDEX_FILENAME
KINDS = ("en_multi", "en_short", "zh_phrase", "zh_word2")
EXTRA_KINDS = ("zh_common", "no_hit")  # reported beside the four, not part of the targets
KIND_LABELS = {
    "en_multi": "English multi-word",
    "en_short": "short English term",
    "zh_phrase": "Chinese phrase",
    "zh_word2": "2-char Chinese word",
    "zh_common": "Chinese phrase with 我们-like word",
    "no_hit": "word found nowhere",
}
RAW_TABLE = {
    "en_multi": "memory_fts",
    "en_short": "memory_fts",
    "zh_phrase": "memory_search bigrams",
    "zh_word2": "memory_search bigrams",
    "zh_common": "memory_search bigrams",
    "no_hit": "memory_fts",
}

# --------------------------------------------------------------------------------------------
# Vocabulary

EN_FUNCTION = """
the of and to a in is it that for on with as was be at by this we from or but not are have
has had an they you he she his her their our will would can could should do does did if then
so about into than when which who what there been were more also just only all some any its
""".split()

# Short technical terms (1-3 letters), as written in text; placed at ranks from common to rare.
SHORT_TERMS = (
    "UI", "go", "k8s", "db", "CI", "AI", "js", "os", "vm", "io", "ml", "QA", "PR", "s3", "UX",
    "CLI",
)  # fmt: skip
SHORT_TERM_RANKS = (70, 90, 120, 160, 200, 260, 330, 420, 520, 650, 800, 1000, 1300, 1600,
                    2000, 2500)  # fmt: skip

EN_CONTENT = """
memory search index store file folder project user team meeting deploy server client config
database query table column schema migration backup restore release version branch commit
merge review test build pipeline docker cluster node service endpoint request response error
warning log metric alert latency throughput cache queue message email calendar reminder note
task ticket issue bug fix feature design plan goal deadline budget cost price invoice contract
customer partner vendor product market launch report summary draft document page section
chapter book article paper research study lesson course teacher student school university
morning evening night weekend holiday vacation trip flight hotel airport train station city
coffee tea lunch dinner breakfast recipe kitchen garden house apartment office desk chair
keyboard monitor laptop phone tablet screen window button menu theme font color dark light
editor terminal shell script command option flag argument parameter variable function class
method object array string number integer float boolean type module package library framework
plugin extension browser network proxy firewall certificate password account login session
token permission role admin owner group channel thread reply comment feedback suggestion idea
question answer problem solution approach tradeoff decision reason context detail example
pattern template style format layout component widget dialog panel sidebar toolbar shortcut
performance memory disk storage upload download sync offline online remote local cloud region
zone backend frontend mobile desktop android linux windows macos python rust java kotlin swift
typescript javascript golang postgres sqlite redis kafka nginx grafana prometheus terraform
ansible kubernetes helm jenkins github gitlab jira slack notion figma sketch excel word
spreadsheet chart graph dashboard analytics experiment hypothesis result conclusion benchmark
profile trace debug breakpoint exception timeout retry limit quota threshold window interval
schedule cron job worker thread process lock transaction commit rollback snapshot archive
export import parser tokenizer stemmer ranking score weight vector embedding model prompt
agent assistant conversation history context preference habit routine exercise running yoga
swimming cycling hiking music movie podcast novel poetry painting photo camera travel family
friend colleague manager director engineer designer writer doctor nurse lawyer birthday
anniversary wedding party gift dog cat bird plant flower tree river mountain beach lake park
weather rain snow sunny cloudy spring summer autumn winter january february march april june
july august september october november december monday tuesday wednesday thursday friday
saturday sunday today tomorrow yesterday quickly slowly carefully always never often usually
prefer like dislike want need remember forget learn teach write read speak listen watch play
work rest sleep cook clean move buy sell pay send receive open close start stop finish begin
create delete update rename copy paste undo redo save load check verify validate approve
reject accept cancel confirm enable disable install upgrade configure monitor measure compare
improve reduce increase optimize refactor simplify document explain describe summarize
important urgent simple complex stable reliable secure private public shared default custom
manual automatic fast slow small large early late new old first last next previous main
""".split()

ZH_FUNCTION = """
我们 他们 这个 一个 没有 已经 因为 所以 但是 如果 可以 需要 应该 还是 现在 今天 时候 自己 就是 什么
""".split()
ZH_PARTICLES = tuple("的了在是和也把就都要会有")
ZH_CONTENT = """
用户 系统 数据 数据库 服务器 配置 部署 项目 文件 记忆 检索 模型 接口 测试 代码 版本 功能 问题
需求 设计 方案 实现 性能 优化 文档 会议 时间 工作 团队 客户 产品 开发 环境 网络 安全 权限 日志
错误 修复 更新 发布 计划 任务 进度 目标 结果 分析 报告 研究 学习 知识 经验 习惯 偏好 喜欢 讨厌
早上 晚上 周末 咖啡 绿茶 午饭 晚饭 运动 跑步 健身 旅行 北京 上海 深圳 杭州 公司 同事 朋友 家人
孩子 生日 周年 纪念 电影 音乐 书籍 阅读 写作 中文 英文 翻译 语言 编程 算法 架构 框架 前端 后端
移动端 浏览器 手机 电脑 键盘 显示器 主题 深色 浅色 字体 界面 按钮 窗口 菜单 设置 选项 快捷键 搜索
索引 查询 排序 分页 缓存 队列 消息 通知 邮件 日历 提醒 备份 恢复 同步 上传 下载 存储 容器 集群
节点 负载 监控 告警 指标 延迟 吞吐量 内存 磁盘 处理器 线程 进程 并发 事务 迁移 脚本 命令 参数
变量 函数 类型 对象 数组 字符串 编码 格式 模板 样式 组件 插件 依赖 安装 升级 兼容 稳定 可靠 简单
复杂 重要 紧急 默认 自动 手动 本地 远程 云端 离线 在线 登录 注册 密码 账号 支付 订单 价格 预算
成本 收入 合同 审批 流程 规范 标准 质量 评审 反馈 建议 意见 总结 复盘 周报 日报 会议纪要 需求文档
技术方案 上线 回滚 灰度发布 压测 单元测试 集成测试 持续集成 代码审查 开源 许可证 社区 贡献 维护
重构 调试 断点 异常 超时 重试 限流 熔断 降级 健康 医生 医院 天气 下雨 晴天 春节 中秋 假期 出差
机场 火车 酒店 地铁 公交 骑车 开车 做饭 米饭 面条 饺子 水果 苹果 香蕉 牛奶 花园 房子 搬家 装修
家具 沙发 老师 学生 学校 大学 课程 考试 作业 论文 实验 数据集 训练 推理 向量 嵌入 提示词 助手
对话 历史 上下文 长期记忆 短期记忆 知识库 检索增强 生成 摘要 标签 分类 聚类 去重 合并 冲突 审核
""".split()

ZH_EXTRA_CHARS = (
    "人大中国年上生到下过子说时们出会可也你对就里如进着等部度家电力道起政好十法所理新"
    "意利比员明方面后多定行学高样成分公资主化动同长物现实加都两体制机当使点从业本去把性"
    "应开它合还因由其些然前外天而心内平各重相关无经第者知开工使用水间信通品提结解系统"
)

SYLLABLES = """
ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne
ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zo
bar ben cor dan fel gar hol kin lor mar nel por ran sel tor val ven wil zan
""".split()


def _pseudo_words(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    """Deterministic made-up words (2-3 syllables) that are not real vocabulary."""
    words: list[str] = []
    while len(words) < count:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3))))
        if word not in taken and len(word) >= 4:
            taken.add(word)
            words.append(word)
    return words


class Zipf:
    """Draws items with probability ~ 1 / rank^s."""

    def __init__(self, items: Sequence[str], s: float) -> None:
        self.items = list(items)
        cumulative: list[float] = []
        total = 0.0
        for rank in range(1, len(self.items) + 1):
            total += 1.0 / rank**s
            cumulative.append(total)
        self.cumulative = cumulative
        self.total = total

    def draw(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.items, cum_weights=self.cumulative, k=k)

    def probability(self, item: str) -> float:
        rank = self.items.index(item) + 1
        return (1.0 / rank) / self.total


@dataclass
class Vocabulary:
    english: Zipf
    chinese: Zipf
    en_content: frozenset[str]
    short_terms: tuple[str, ...]


def _pseudo_compounds(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    """Made-up Chinese words (mostly two characters) from the characters of the real list.

    A few hundred real words alone would make every word far more frequent than in real text
    (tens of thousands of words in use), so the tail of the vocabulary is filled with these.
    """
    chars = sorted({c for word in (*ZH_CONTENT, *ZH_FUNCTION) for c in word} | set(ZH_EXTRA_CHARS))
    words: list[str] = []
    while len(words) < count:
        length = rng.choices((2, 3, 4), weights=(7, 2, 1))[0]
        word = "".join(rng.choice(chars) for _ in range(length))
        if word not in taken:
            taken.add(word)
            words.append(word)
    return words


def build_vocabulary(seed: int, size: int, zh_size: int) -> Vocabulary:
    rng = random.Random(seed)
    content = list(dict.fromkeys(w for w in EN_CONTENT if w not in EN_FUNCTION))
    rng.shuffle(content)
    taken = set(content) | set(EN_FUNCTION) | {t.lower() for t in SHORT_TERMS}
    content += _pseudo_words(rng, max(0, size - len(EN_FUNCTION) - len(content)), taken)
    ranked = list(EN_FUNCTION) + content
    for term, rank in zip(SHORT_TERMS, SHORT_TERM_RANKS, strict=True):
        ranked.insert(min(rank - 1, len(ranked)), term)
    chinese = list(dict.fromkeys(ZH_CONTENT))
    rng.shuffle(chinese)
    taken_zh = set(chinese) | set(ZH_FUNCTION)
    chinese += _pseudo_compounds(rng, max(0, zh_size - len(ZH_FUNCTION) - len(chinese)), taken_zh)
    return Vocabulary(
        english=Zipf(ranked, 1.0),
        chinese=Zipf(list(ZH_FUNCTION) + chinese, 1.0),
        en_content=frozenset(w.lower() for w in content) | {t.lower() for t in SHORT_TERMS},
        short_terms=SHORT_TERMS,
    )


# --------------------------------------------------------------------------------------------
# Corpus


@dataclass
class Memory:
    slug: str
    type: str
    description: str
    body: str
    lang: str  # zh | en | mixed


@dataclass
class QuerySource:
    """What a query can be drawn from: one document's words."""

    doc: int
    en_words: list[str] = field(default_factory=list)
    zh_windows: list[str] = field(default_factory=list)  # 2-3 consecutive content words
    zh_windows_common: list[str] = field(default_factory=list)  # ...with a word like 我们
    zh_words2: list[str] = field(default_factory=list)


TYPES = ("reference", "reference", "reference", "reference", "project", "project", "user",
         "user", "feedback", "reference")  # fmt: skip


class CorpusGenerator:
    def __init__(self, vocab: Vocabulary, seed: int) -> None:
        self.vocab = vocab
        self.rng = random.Random(seed)
        self.query_rng = random.Random(seed + 1)  # query material never shifts the corpus

    def _en_sentence(self, low: int, high: int) -> tuple[str, list[str]]:
        words = self.vocab.english.draw(self.rng, self.rng.randint(low, high))
        text = " ".join(words)
        text = text[0].upper() + text[1:] + self.rng.choice((".", ".", ".", "?", "!"))
        return text, words

    def _zh_tokens(self, low: int, high: int, latin: int) -> list[str]:
        """Chinese words with particles between some of them; `latin` English words mixed in."""
        words = self.vocab.chinese.draw(self.rng, self.rng.randint(low, high))
        tokens: list[str] = []
        for word in words:
            tokens.append(word)
            if self.rng.random() < 0.3:
                tokens.append(self.rng.choice(ZH_PARTICLES))
            if self.rng.random() < 0.12:
                tokens.append("，")
        for _ in range(latin):
            english = self.vocab.english.draw(self.rng, 1)[0]
            while english.lower() in EN_FUNCTION:
                english = self.vocab.english.draw(self.rng, 1)[0]
            tokens.insert(self.rng.randint(0, len(tokens)), " " + english + " ")
        return tokens

    @staticmethod
    def _zh_text(tokens: list[str]) -> str:
        return ("".join(tokens).strip().replace("  ", " ") + "。").replace("，。", "。")

    def memory(self, index: int, source: QuerySource | None) -> Memory:
        rng = self.rng
        roll = rng.random()
        lang = "zh" if roll < 1 / 3 else "en" if roll < 2 / 3 else "mixed"
        sentences: list[str] = []
        en_words: list[str] = []
        zh_token_lists: list[list[str]] = []
        count = rng.randint(2, 6)
        for position in range(count + 1):  # sentence 0 is the description
            short = position == 0
            if lang == "en" or (lang == "mixed" and rng.random() < 0.35):
                text, words = self._en_sentence(5, 10) if short else self._en_sentence(8, 18)
                en_words += words
            else:
                latin = 0 if lang == "zh" else rng.randint(1, 3)
                tokens = self._zh_tokens(3, 6, latin) if short else self._zh_tokens(5, 12, latin)
                zh_token_lists.append(tokens)
                en_words += [t.strip() for t in tokens if t.startswith(" ")]
                text = self._zh_text(tokens)
            sentences.append(text)
        description = sentences[0][: config.MAX_DESCRIPTION_CHARS]
        joiner = "" if lang == "zh" else " "
        body_sentences = sentences[1:]
        if rng.random() < 0.25:  # some notes are bullet lists
            body = "\n".join(f"- {s}" for s in body_sentences)
        else:
            body = joiner.join(body_sentences)
        if source is not None:
            content = self.vocab.en_content
            source.en_words = list(
                dict.fromkeys(w.lower() for w in en_words if w.lower() in content)
            )
            for tokens in zh_token_lists:
                words = [t for t in tokens if len(t) >= 2 and not t.startswith(" ")]
                # content words, as for English (a query of just 我们 is like one of "the")
                source.zh_words2 += [w for w in words if len(w) == 2 and w not in ZH_FUNCTION]
                for start in range(len(tokens)):
                    window = tokens[start : start + self.query_rng.choice((2, 3))]
                    if all(len(t) >= 2 and not t.startswith(" ") for t in window):
                        phrase = "".join(window)
                        if len(phrase) < 4:
                            continue
                        if any(t in ZH_FUNCTION for t in window):
                            source.zh_windows_common.append(phrase)
                        else:
                            source.zh_windows.append(phrase)
        return Memory(
            slug=f"m-{index:06d}",
            type=TYPES[index % len(TYPES)],
            description=description,
            body=body,
            lang=lang,
        )


def generate(
    vocab: Vocabulary, n: int, seed: int, start: int = 0, sources: int = 0
) -> tuple[list[Memory], list[QuerySource]]:
    """N memories (slugs from `start`) and the query material of `sources` of them."""
    generator = CorpusGenerator(vocab, seed + start)
    pick = set(random.Random(seed + 7).sample(range(n), min(sources, n)))
    memories: list[Memory] = []
    material: list[QuerySource] = []
    for offset in range(n):
        source = QuerySource(doc=offset) if offset in pick else None
        memories.append(generator.memory(start + offset, source))
        if source is not None:
            material.append(source)
    return memories, material


@dataclass
class Query:
    kind: str
    text: str
    source_doc: int


def make_queries(
    material: list[QuerySource], vocab: Vocabulary, count: int, seed: int
) -> dict[str, list[Query]]:
    rng = random.Random(seed + 11)
    queries: dict[str, list[Query]] = {kind: [] for kind in (*KINDS, *EXTRA_KINDS)}
    en = [s for s in material if len(s.en_words) >= 3]
    zh_phrase = [s for s in material if s.zh_windows]
    zh_common = [s for s in material if s.zh_windows_common]
    zh_word2 = [s for s in material if s.zh_words2]
    for i in range(count):
        src = rng.choice(en)
        words = rng.sample(src.en_words, rng.choice((2, 3, 3, 4)) if len(src.en_words) >= 4 else 3)
        queries["en_multi"].append(Query("en_multi", " ".join(words), src.doc))
        term = vocab.short_terms[i % len(vocab.short_terms)]
        queries["en_short"].append(Query("en_short", term, -1))
        src = rng.choice(zh_phrase)
        queries["zh_phrase"].append(Query("zh_phrase", rng.choice(src.zh_windows), src.doc))
        src = rng.choice(zh_common)
        queries["zh_common"].append(Query("zh_common", rng.choice(src.zh_windows_common), src.doc))
        src = rng.choice(zh_word2)
        queries["zh_word2"].append(Query("zh_word2", rng.choice(src.zh_words2), src.doc))
        # letters the generator never puts together: a search that finds nothing
        missing = "".join(rng.choice("qxzjvw") for _ in range(rng.randint(7, 10)))
        queries["no_hit"].append(Query("no_hit", missing, -1))
    return queries


# --------------------------------------------------------------------------------------------
# Raw FTS5 queries


def raw_query(kind: str, text: str) -> tuple[str, str]:
    """(SQL, MATCH text) of the raw FTS5 baseline for one query (see module docstring)."""
    terms = search_module.query_terms(text)
    if RAW_TABLE[kind] == "memory_fts":
        match = " OR ".join(fts_quote(w) for w in terms.words)
        sql = "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT 10"
        return sql, match
    bigrams = list(dict.fromkeys(b for run in terms.cjk_runs for b in run_bigrams(run)))
    match = "{dcjk bcjk} : (" + " OR ".join(fts_quote(b) for b in bigrams) + ")"
    sql = "SELECT rowid FROM memory_search WHERE memory_search MATCH ? ORDER BY rank LIMIT 10"
    return sql, match


def ours_sql(store: MemoryStore, text: str, limit: int) -> tuple[str, str]:
    """The MATCH our search sends first (global + all projects: no keys filter), including
    the terms it leaves out as too common when the package does that."""
    terms = search_module.query_terms(text)
    skip = getattr(search_module, "skip_common_terms", None)
    if skip is not None:
        with store.index.read() as conn:
            terms = skip(conn, terms)
    match = search_module.match_expression(terms)
    weights = ", ".join(str(w) for w in search_module.COLUMN_WEIGHTS)
    n = max(config.SEARCH_CANDIDATES_PER_QUERY, limit * 2)
    sql = (
        f"SELECT rowid, bm25(memory_search, {weights}) AS r FROM memory_search "
        f"WHERE memory_search MATCH ? ORDER BY r LIMIT {n}"
    )
    return sql, match


# --------------------------------------------------------------------------------------------
# Helpers


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "max_ms": round(max(ms), 3),
    }


def remove_index(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{root / INDEX_NAME}{suffix}")
        if path.exists():
            path.unlink()


def index_bytes(root: Path) -> int:
    return sum(
        Path(f"{root / INDEX_NAME}{s}").stat().st_size
        for s in ("", "-wal")
        if Path(f"{root / INDEX_NAME}{s}").exists()
    )


def short_term_docs(root: Path) -> dict[str, int]:
    """How many memories contain each short term (memory_fts, unicode61)."""
    with sqlite3.connect(f"file:{root / INDEX_NAME}?mode=ro", uri=True) as conn:
        return {
            term: conn.execute(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (fts_quote(term),)
            ).fetchone()[0]
            for term in SHORT_TERMS
        }


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def timed_cpu(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, value): CPU time is what the work cost
    even when other programs compete for the two cores."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def chunks(items: Sequence[Memory], size: int) -> Iterable[Sequence[Memory]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# --------------------------------------------------------------------------------------------
# Phases


def batch_write(
    store: MemoryStore, memories: Sequence[Memory], batch: int, workdir: str | None = None
) -> dict[str, Any]:
    """Write memories through apply_batch; returns throughput and per-batch timing."""
    scope = "project" if workdir else "global"
    times: list[float] = []
    failed = 0
    for group in chunks(memories, batch):
        items = [
            BatchItem(
                op="upsert",
                slug=m.slug,
                scope=scope,
                type=m.type,
                description=m.description,
                body=m.body,
            )
            for m in group
        ]
        seconds, result = timed(
            lambda items=items: store.apply_batch(
                BatchRequest(actor="user", items=items, workdir=workdir)
            )
        )
        if result.failed:
            errors = [r.error for r in result.items if r.error][:3]
            raise SystemExit(f"apply_batch failed for {result.failed} items: {errors}")
        failed += result.failed
        times.append(seconds)
    total = sum(times)
    per_batch = [len(g) / t for g, t in zip(chunks(memories, batch), times, strict=True)]
    return {
        "memories": len(memories),
        "batch_size": batch,
        "seconds": round(total, 3),
        "memories_per_s": round(len(memories) / total, 1),
        "first_batch_per_s": round(per_batch[0], 1),
        "last_batch_per_s": round(per_batch[-1], 1),
        "failed": failed,
    }


def seed_files(root: Path, memories: Sequence[Memory], workdir: str | None = None) -> float:
    """Write memory files directly (same renderer as the store) without indexing them."""
    layout = Layout(root.absolute())
    layout.ensure()
    now = format_rfc3339(int(time.time() * 1000))
    scope = "project" if workdir else "global"
    project = workdir_hash(workdir) if workdir else ""
    started = time.perf_counter()
    if workdir:
        project_dir = layout.project_dir(project)
        project_dir.mkdir(mode=config.DIR_MODE, parents=True, exist_ok=True)
        write_workdir_marker(project_dir, workdir, int(time.time() * 1000))
    made: set[Path] = set()
    for m in memories:
        doc = MemoryDocument(
            FrontMatter(
                name=m.slug,
                description=m.description,
                type=m.type,
                scope=scope,
                created_at=now,
                updated_at=now,
                source={"trigger": "user", "unreviewed": False},
            ),
            m.body.strip(),
        )
        path = layout.path_for(scope, project, m.type, m.slug)
        if path.parent not in made:
            path.parent.mkdir(mode=config.DIR_MODE, parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(render_document(doc).encode("utf-8"))
    return time.perf_counter() - started


def _rendered(root: Path, memories: Sequence[Memory]) -> list[tuple[Path, bytes]]:
    """Each memory's file path under `root` and its bytes, as the store renders them."""
    layout = Layout(root.absolute())
    now = format_rfc3339(int(time.time() * 1000))
    out: list[tuple[Path, bytes]] = []
    for m in memories:
        doc = MemoryDocument(
            FrontMatter(
                name=m.slug,
                description=m.description,
                type=m.type,
                scope="global",
                created_at=now,
                updated_at=now,
                source={"trigger": "user", "unreviewed": False},
            ),
            m.body.strip(),
        )
        out.append((layout.path_for("global", "", m.type, m.slug), render_document(doc).encode()))
    return out


def raw_write_baseline(root: Path, memories: Sequence[Memory]) -> dict[str, Any]:
    """Raw baseline of a durable write: plain Python writes the same rendered files, each to
    a temp file, fsync, rename (the files rendered beforehand, outside the timing)."""
    shutil.rmtree(root, ignore_errors=True)
    files = _rendered(root, memories)
    for folder in {path.parent for path, _ in files}:
        folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for path, data in files:
        tmp = f"{path.parent}/.tmp-{path.name}.part"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    seconds = time.perf_counter() - started
    shutil.rmtree(root, ignore_errors=True)
    return {
        "files": len(files),
        "seconds": round(seconds, 3),
        "files_per_s": round(len(files) / seconds, 1),
    }


def parse_only_baseline(root: Path) -> dict[str, Any]:
    """Raw baseline of a cold reconcile: read every memory file of the store and parse it with
    python-frontmatter (`frontmatter.loads`), nothing else."""
    import frontmatter

    found, _ = Layout(root.absolute()).scan()
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for item in found:
        with open(item.abspath, "rb") as handle:
            frontmatter.loads(handle.read().decode("utf-8"))
    seconds = time.perf_counter() - wall
    return {
        "files": len(found),
        "seconds": round(seconds, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
        "files_per_s": round(len(found) / seconds, 1),
    }


def open_store(root: Path, scope_limit: int = 10**9) -> MemoryStore:
    return MemoryStore.open(root, scope_limit=scope_limit)


def measure_cold(root: Path) -> dict[str, Any]:
    remove_index(root)
    gc.collect()
    # A cold pass over many files may run a worker process (store/cold_fts.py): its CPU is
    # counted once it was waited for, as the children's.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, cpu, store = timed_cpu(lambda: open_store(root))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = store.last_reconcile
    store.close()
    assert report is not None and report.full_rebuild, "cold open did not rebuild"
    return {
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "worker_cpu_seconds": round(
            after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime, 3
        ),
        "files": report.added,
        "files_per_s": round(report.added / seconds, 1),
        "problems": len(report.problems),
    }


def _list_tree(root: Path) -> int:
    """Floor of a warm pass: list and stat every file with os.scandir, nothing else."""
    count = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    entry.stat(follow_symlinks=False)
                    count += 1
    return count


def measure_warm(root: Path, repeats: int) -> dict[str, Any]:
    opens: list[float] = []
    opens_cpu: list[float] = []
    for _ in range(repeats):
        seconds, cpu, store = timed_cpu(lambda: open_store(root))
        store.close()
        opens.append(seconds)
        opens_cpu.append(cpu)
    store = open_store(root)
    reconciles: list[float] = []
    reconciles_cpu: list[float] = []
    unchanged = 0
    for _ in range(repeats):
        seconds, cpu, report = timed_cpu(store.reconcile)
        assert not report.full_rebuild and not report.added and not report.updated
        unchanged = report.unchanged
        reconciles.append(seconds)
        reconciles_cpu.append(cpu)
    store.close()
    layout = Layout(root.absolute())
    scans = [timed(layout.scan)[0] for _ in range(repeats)]
    listings = [timed(lambda: _list_tree(root))[0] for _ in range(repeats)]
    return {
        "reconcile_s_median": round(statistics.median(reconciles), 4),
        "reconcile_cpu_s_median": round(statistics.median(reconciles_cpu), 4),
        "open_cpu_s_median": round(statistics.median(opens_cpu), 4),
        "scan_s_median": round(statistics.median(scans), 4),
        "listdir_stat_s_median": round(statistics.median(listings), 4),
        "reconcile_s_max": round(max(reconciles), 4),
        "open_s_median": round(statistics.median(opens), 4),
        "open_s_max": round(max(opens), 4),
        "unchanged": unchanged,
        "repeats": repeats,
    }


def measure_search(
    root: Path,
    queries: dict[str, list[Query]],
    *,
    workdirs: dict[int, str] | None = None,
    default_scope: bool = False,
    warmup: int = 10,
    count_sample: int = 30,
) -> dict[str, Any]:
    """Latency of our search beside the raw FTS5 query, interleaved query by query.

    Searches cover every memory (`include_all_projects=True`) unless `workdirs` scopes each
    query to its source document's project, or `default_scope` sends no scope at all (what an
    agent outside any project sends: global + no project).
    """
    store = open_store(root)
    raw = sqlite3.connect(f"file:{root / INDEX_NAME}?mode=ro", uri=True)
    out: dict[str, Any] = {}
    for kind, items in queries.items():
        ours_ms: list[float] = []
        raw_ms: list[float] = []
        sql_ms: list[float] = []
        ours_cpu_ms: list[float] = []
        raw_cpu_ms: list[float] = []
        hits: list[int] = []
        raw_hits: list[int] = []
        matched: list[int] = []
        found_source = 0
        fallback = 0
        for position, query in enumerate([*items[:warmup], *items]):
            workdir = workdirs.get(query.source_doc) if workdirs else None
            started, started_cpu = time.perf_counter(), time.process_time()
            result = store.search(
                SearchRequest(
                    query=query.text,
                    limit=10,
                    workdir=workdir,
                    include_all_projects=workdir is None and not default_scope,
                )
            )
            ours = time.perf_counter() - started
            ours_cpu = time.process_time() - started_cpu
            sql, match = raw_query(kind, query.text)
            params: tuple[Any, ...] = (match,)
            if workdir is not None:
                sql, params = _project_raw(kind, sql, match, workdir_hash(workdir))
            started, started_cpu = time.perf_counter(), time.process_time()
            rows = raw.execute(sql, params).fetchall()
            raw_seconds = time.perf_counter() - started
            raw_cpu = time.process_time() - started_cpu
            our_sql, our_match = ours_sql(store, query.text, 10)
            if workdir is not None:
                our_match = f"({our_match}) AND keys : (sglobal OR p{workdir_hash(workdir)})"
            started = time.perf_counter()
            raw.execute(our_sql, (our_match,)).fetchall()
            sql_seconds = time.perf_counter() - started
            if position < warmup:
                continue
            ours_ms.append(ours * 1000)
            raw_ms.append(raw_seconds * 1000)
            ours_cpu_ms.append(ours_cpu * 1000)
            raw_cpu_ms.append(raw_cpu * 1000)
            sql_ms.append(sql_seconds * 1000)
            hits.append(len(result.matches))
            fallback += result.used_fallback
            raw_hits.append(len(rows))
            if query.source_doc >= 0:
                slugs = {h.slug for h in result.matches}
                found_source += any(s.endswith(f"{query.source_doc:06d}") for s in slugs)
            if len(matched) < count_sample:
                matched.append(
                    raw.execute(
                        "SELECT count(*) FROM memory_search WHERE memory_search MATCH ?",
                        (our_match,),
                    ).fetchone()[0]
                )
        ours_summary = latency_summary(ours_ms)
        raw_summary = latency_summary(raw_ms)
        out[kind] = {
            "queries": len(ours_ms),
            "examples": [q.text for q in items[:3]],
            "ours": ours_summary,
            "raw": raw_summary,
            "raw_table": RAW_TABLE[kind],
            "ours_sql": latency_summary(sql_ms),
            "ours_cpu": latency_summary(ours_cpu_ms),
            "raw_cpu": latency_summary(raw_cpu_ms),
            "used_fallback": fallback,
            "ratio_p50": round(ours_summary["p50_ms"] / max(raw_summary["p50_ms"], 1e-6), 2),
            "ratio_p95": round(ours_summary["p95_ms"] / max(raw_summary["p95_ms"], 1e-6), 2),
            "mean_hits": round(statistics.fmean(hits), 2),
            "raw_mean_hits": round(statistics.fmean(raw_hits), 2),
            "matched_docs_median": statistics.median(matched) if matched else None,
            "matched_docs_max": max(matched) if matched else None,
            "source_doc_in_top10": (
                round(found_source / len(items), 3) if items[0].source_doc >= 0 else None
            ),
        }
    raw.close()
    store.close()
    return out


def _project_raw(kind: str, sql: str, match: str, project: str) -> tuple[str, tuple[Any, ...]]:
    """The raw query restricted to one project (a plain post-MATCH filter)."""
    if RAW_TABLE[kind] == "memory_fts":
        sql = sql.replace("MATCH ?", "MATCH ? AND workdir_hash = ?")
    else:
        sql = sql.replace(
            "MATCH ?",
            # `+rowid`: a plain filter. A bare `rowid IN (subquery)` makes FTS5 run the MATCH
            # once per listed rowid (slow; see README).
            "MATCH ? AND +rowid IN (SELECT id FROM memory_files WHERE workdir_hash = ?)",
        )
    return sql, (match, project)


# --------------------------------------------------------------------------------------------
# Runs


def run_size(n: int, args: argparse.Namespace, vocab: Vocabulary, base: Path) -> dict[str, Any]:
    root = base / f"global-{n}"
    shutil.rmtree(root, ignore_errors=True)
    result: dict[str, Any] = {"memories": n, "loadavg_start": os.getloadavg()}
    seconds, (memories, material) = timed(
        lambda: generate(vocab, n, args.seed, sources=min(n, 2000))
    )
    langs = {lang: sum(m.lang == lang for m in memories) for lang in ("zh", "en", "mixed")}
    body_bytes = [len(m.body.encode("utf-8")) for m in memories]
    result["corpus"] = {
        "generate_s": round(seconds, 2),
        "languages": langs,
        "body_bytes_mean": round(statistics.fmean(body_bytes), 1),
    }
    log(f"[{n}] corpus generated in {seconds:.1f} s: {langs}")
    if n <= args.max_batch_build:
        store = open_store(root)
        result["write_fill"] = batch_write(store, memories, args.batch)
        store.close()
        log(f"[{n}] apply_batch fill: {result['write_fill']['memories_per_s']} memories/s")
        raw = raw_write_baseline(base / f"raw-{n}", memories)
        result["write_fill"]["raw_fsync_rename"] = raw
        result["write_fill"]["ratio_to_raw"] = round(
            result["write_fill"]["seconds"] / raw["seconds"], 2
        )
        log(f"[{n}] raw write + fsync + rename: {raw['files_per_s']} files/s")
    else:
        seconds = seed_files(root, memories)
        result["seeded_files_s"] = round(seconds, 2)
        log(f"[{n}] wrote {n} files directly in {seconds:.1f} s (apply_batch too slow at this N)")
    result["cold_reconcile"] = measure_cold(root)
    log(f"[{n}] cold reconcile {result['cold_reconcile']['seconds']} s")
    parse = parse_only_baseline(root)
    result["cold_reconcile"]["parse_only"] = parse
    result["cold_reconcile"]["ratio_to_parse"] = round(
        result["cold_reconcile"]["seconds"] / parse["seconds"], 2
    )
    log(f"[{n}] python-frontmatter parse only: {parse['seconds']} s")
    result["index_bytes"] = index_bytes(root)
    result["short_term_docs"] = short_term_docs(root)
    result["warm"] = measure_warm(root, args.warm_repeats)
    log(
        f"[{n}] warm reconcile {result['warm']['reconcile_s_median']} s, "
        f"open {result['warm']['open_s_median']} s"
    )
    queries = make_queries(material, vocab, args.queries, args.seed)
    del memories
    gc.collect()
    if not args.no_search:
        result["search"] = measure_search(root, queries)
        _log_search(f"[{n}]", result["search"])
    if args.default_scope_queries and not args.no_search:
        sample = {k: v[: args.default_scope_queries] for k, v in queries.items()}
        result["search_default_scope"] = measure_search(
            root, sample, default_scope=True, warmup=3, count_sample=0
        )
        _log_search(f"[{n} default scope]", result["search_default_scope"])
    if args.extra_writes:
        extra, _ = generate(vocab, args.extra_writes, args.seed, start=n)
        store = open_store(root)
        result["write_at_size"] = batch_write(store, extra, args.batch)
        store.close()
        log(f"[{n}] apply_batch at size: {result['write_at_size']['memories_per_s']} memories/s")
    result["loadavg_end"] = os.getloadavg()
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return result


def _log_search(prefix: str, search: dict[str, Any]) -> None:
    for kind, s in search.items():
        log(
            f"{prefix} {kind}: ours p50 {s['ours']['p50_ms']} p95 {s['ours']['p95_ms']} ms; "
            f"raw p50 {s['raw']['p50_ms']} p95 {s['raw']['p95_ms']} ms; "
            f"fallback {s['used_fallback']}/{s['queries']}"
        )


def run_projects(n: int, args: argparse.Namespace, vocab: Vocabulary, base: Path) -> dict[str, Any]:
    """N memories spread over projects of --per-project each; searches scoped to one project.

    Files are written directly and indexed by the cold open (write speed is the global
    variant's business); each query searches the project of the document it was drawn from.
    """
    root = base / f"projects-{n}"
    shutil.rmtree(root, ignore_errors=True)
    memories, material = generate(vocab, n, args.seed, sources=min(n, 2000))
    per = args.per_project
    projects = (n + per - 1) // per
    workdir_of = {i: f"/bench/project-{i // per:04d}" for i in range(n)}
    result: dict[str, Any] = {"memories": n, "projects": projects, "per_project": per}
    # Files written directly (write speed is measured by the global variant); the cold open
    # indexes them.
    seconds = sum(
        seed_files(root, memories[p * per : (p + 1) * per], workdir_of[p * per])
        for p in range(projects)
    )
    result["seeded_files_s"] = round(seconds, 2)
    result["cold_reconcile"] = measure_cold(root)
    log(f"[projects {n}] built; cold reconcile {result['cold_reconcile']['seconds']} s")
    result["warm"] = measure_warm(root, args.warm_repeats)
    queries = make_queries(material, vocab, args.queries, args.seed)
    del queries["en_short"]  # a short term is not tied to a source document's project
    del queries["no_hit"]
    del queries["zh_common"]
    result["search"] = measure_search(root, queries, workdirs=workdir_of)
    _log_search(f"[projects {n}]", result["search"])
    extra_n = min(args.extra_writes, per)
    if extra_n:
        # a new project in the full store, with the real per-scope quota
        extra, _ = generate(vocab, extra_n, args.seed, start=n)
        store = open_store(root, scope_limit=config.SCOPE_MEMORY_LIMIT)
        result["write_new_project"] = batch_write(store, extra, args.batch, "/bench/project-new")
        store.close()
        log(f"[projects {n}] apply_batch: {result['write_new_project']['memories_per_s']}/s")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return result


# --------------------------------------------------------------------------------------------
# Report


def _search_rows(n: str, search: dict[str, Any]) -> list[str]:
    rows: list[str] = []
    for kind, s in search.items():
        matched = s["matched_docs_median"]
        rows.append(
            f"| {int(n):,} | {KIND_LABELS[kind]} "
            f"| {s['ours']['p50_ms']:.2f} / {s['ours']['p95_ms']:.2f} "
            f"| {s['raw']['p50_ms']:.2f} / {s['raw']['p95_ms']:.2f} | {s['raw_table']} "
            f"| {s['ratio_p50']:.2f} / {s['ratio_p95']:.2f} "
            f"| {s['ours_sql']['p50_ms']:.2f} / {s['ours_sql']['p95_ms']:.2f} "
            f"| {s['ours_cpu']['p95_ms']:.2f} / {s['raw_cpu']['p95_ms']:.2f} "
            f"| {'-' if matched is None else f'{matched:,.0f}'} "
            f"| {s['used_fallback']}/{s['queries']} |"
        )
    return rows


SEARCH_HEADER = [
    "| memories | query kind | ours p50 / p95 (ms) | raw FTS5 p50 / p95 (ms) | raw table "
    "| ratio p50 / p95 | our SQL p50 / p95 (ms) | p95 CPU ours / raw (ms) | docs matched (median) "
    "| fallback found more |",
    "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|",
]


def raw_rows(sizes: dict[str, Any]) -> list[str]:
    """Writes and cold reconcile beside their raw baselines of the same run (issue 17)."""
    lines = [
        "| memories | apply_batch | raw write + fsync + rename | ratio | cold reconcile "
        "| python-frontmatter parse only | ratio | warm open |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in sizes.items():
        fill = r.get("write_fill") or {}
        raw = fill.get("raw_fsync_rename")
        write = (
            f"{fill['seconds']:.2f} s ({fill['memories_per_s']:.0f}/s) "
            f"| {raw['seconds']:.2f} s ({raw['files_per_s']:.0f}/s) | {fill['ratio_to_raw']:.2f}x"
            if raw
            else "- | - | -"
        )
        cold = r["cold_reconcile"]
        parse = cold.get("parse_only")
        cold_text = (
            f"{cold['seconds']:.2f} s ({cold['files_per_s']:.0f}/s) "
            f"| {parse['seconds']:.2f} s ({parse['files_per_s']:.0f}/s) "
            f"| {cold['ratio_to_parse']:.2f}x"
            if parse
            else f"{cold['seconds']:.2f} s | - | -"
        )
        open_ms = r["warm"]["open_s_median"] * 1000
        lines.append(f"| {int(n):,} | {write} | {cold_text} | {open_ms:.0f} ms |")
    return lines


def markdown(results: dict[str, Any]) -> str:
    sizes = results["sizes"]
    lines = [
        "| memories | write (apply_batch) | write at size | cold reconcile (CPU) "
        "| warm reconcile (CPU) | (scan part) | warm open (CPU) | index size |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in sizes.items():
        fill = r.get("write_fill")
        fill_text = f"{fill['memories_per_s']:.0f}/s" if fill else "(files seeded)"
        at_size = r.get("write_at_size")
        at_text = f"{at_size['memories_per_s']:.0f}/s" if at_size else "-"
        warm = r["warm"]
        lines.append(
            f"| {int(n):,} | {fill_text} | {at_text} | {r['cold_reconcile']['seconds']:.1f} s "
            f"({r['cold_reconcile']['cpu_seconds']:.1f} s) "
            f"| {warm['reconcile_s_median'] * 1000:.0f} ms "
            f"({warm['reconcile_cpu_s_median'] * 1000:.0f} ms) "
            f"| {warm['scan_s_median'] * 1000:.0f} ms "
            f"| {warm['open_s_median'] * 1000:.0f} ms ({warm['open_cpu_s_median'] * 1000:.0f} ms) "
            f"| {r['index_bytes'] / 2**20:.1f} MiB |"
        )
    lines += ["", *raw_rows(sizes)]
    if any("search" in r for r in sizes.values()):
        lines += ["", "Search over every memory (`include_all_projects=True`), limit 10:", ""]
        lines += SEARCH_HEADER
    for n, r in sizes.items():
        if "search" in r:
            lines += _search_rows(n, r["search"])
    if any("search_default_scope" in r for r in sizes.values()):
        lines += ["", "The same queries with no scope (global + current project):", ""]
        lines += SEARCH_HEADER
        for n, r in sizes.items():
            if "search_default_scope" in r:
                lines += _search_rows(n, r["search_default_scope"])
    for n, r in results.get("projects", {}).items():
        lines += [
            "",
            f"Per-project variant: {int(n):,} memories in {r['projects']} projects of "
            f"{r['per_project']}; each query searches its source document's project (+ global); "
            "raw = the same raw query plus a project filter.",
            "",
        ]
        if "write_new_project" in r:
            w = r["write_new_project"]
            lines += [
                f"apply_batch of {w['memories']} memories into a new project of this store "
                f"(real quota of {config.SCOPE_MEMORY_LIMIT}): {w['memories_per_s']:.0f}/s; "
                f"warm reconcile {r['warm']['reconcile_s_median'] * 1000:.0f} ms; "
                f"cold reconcile {r['cold_reconcile']['seconds']:.1f} s.",
                "",
            ]
        lines += SEARCH_HEADER
        lines += _search_rows(n, r["search"])
    lines += ["", *targets(results)]
    return "\n".join(lines)


def targets(results: dict[str, Any]) -> list[str]:
    sizes = results["sizes"]
    out: list[str] = []
    if "10000" in sizes:
        warm = sizes["10000"]["warm"]["reconcile_s_median"]
        out.append(
            f"- warm reconcile at 10k < 0.5 s: {'MET' if warm < 0.5 else 'NOT MET'} ({warm} s)"
        )
    if "10000" in sizes:
        out += issue17_targets(sizes["10000"])
    if "100000" in sizes and "search" in sizes["100000"]:
        search = sizes["100000"]["search"]
        for kind in KINDS:
            s = search[kind]
            p95_ok = s["ours"]["p95_ms"] < 50
            ratio_ok = s["ratio_p95"] <= 2.0
            out.append(
                f"- 100k {kind}: p95 < 50 ms {'MET' if p95_ok else 'NOT MET'} "
                f"({s['ours']['p95_ms']} ms); within 2x raw (p95) "
                f"{'MET' if ratio_ok else 'NOT MET'} ({s['ratio_p95']}x; p50 {s['ratio_p50']}x)"
            )
    return out


def issue17_targets(r: dict[str, Any]) -> list[str]:
    """Issue 17's store-speed targets at 10k, each against its raw baseline of the same run."""
    out: list[str] = []
    fill = r.get("write_fill")
    if fill and "ratio_to_raw" in fill:
        ok = fill["ratio_to_raw"] <= 1.5
        out.append(
            f"- apply_batch within 1.5x of raw write + fsync + rename: "
            f"{'MET' if ok else 'NOT MET'} ({fill['ratio_to_raw']}x)"
        )
    cold = r["cold_reconcile"]
    if "ratio_to_parse" in cold:
        ok = cold["ratio_to_parse"] <= 1.5 and cold["files_per_s"] >= 3000
        out.append(
            f"- cold reconcile within 1.5x of parse-only and >= 3,000 files/s: "
            f"{'MET' if ok else 'NOT MET'} ({cold['ratio_to_parse']}x, {cold['files_per_s']}/s)"
        )
    open_s = r["warm"]["open_s_median"]
    out.append(f"- warm open <= 100 ms: {'MET' if open_s <= 0.1 else 'NOT MET'} ({open_s} s)")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark the memory store: writes, reconcile, search latency vs raw FTS5.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000], help="store sizes")
    parser.add_argument("--queries", type=int, default=200, help="queries per kind")
    parser.add_argument("--batch", type=int, default=500, help="apply_batch items per call")
    parser.add_argument(
        "--max-batch-build",
        type=int,
        default=10_000,
        help="largest store filled through apply_batch; larger ones get their files written "
        "directly and indexed by the cold open",
    )
    parser.add_argument(
        "--extra-writes",
        type=int,
        default=500,
        help="memories added through apply_batch to the full store (write speed at size)",
    )
    parser.add_argument("--warm-repeats", type=int, default=3)
    parser.add_argument(
        "--no-search",
        action="store_true",
        help="writes, reconcile and open only (with their raw baselines), no search latency",
    )
    parser.add_argument(
        "--default-scope-queries",
        type=int,
        default=10,
        help="queries per kind also run with no scope (global + current project, the default)",
    )
    parser.add_argument(
        "--project-sizes",
        type=int,
        nargs="*",
        default=[],
        help="also run the per-project variant at these sizes",
    )
    parser.add_argument("--per-project", type=int, default=config.SCOPE_MEMORY_LIMIT)
    parser.add_argument("--vocab", type=int, default=4000, help="English vocabulary size")
    parser.add_argument("--zh-vocab", type=int, default=4000, help="Chinese vocabulary size")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--workdir", type=Path, default=None, help="where stores are built")
    parser.add_argument("--keep", action="store_true", help="keep the built stores")
    parser.add_argument("--out", type=Path, default=Path("bench/out/store.json"))
    args = parser.parse_args(argv)

    vocab = build_vocabulary(args.seed, args.vocab, args.zh_vocab)
    base = Path(tempfile.mkdtemp(prefix="bench-store-", dir=args.workdir))
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": machine_info(),
        "package": package_state(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "sizes": {},
        "projects": {},
    }
    try:
        for n in args.sizes:
            results["sizes"][str(n)] = run_size(n, args, vocab, base)
        for n in args.project_sizes:
            results["projects"][str(n)] = run_projects(n, args, vocab, base)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    results["total_s"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")
    print(markdown(results))
    print(f"\nwrote {args.out} in {results['total_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
