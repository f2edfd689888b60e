/**
 * Does a description say when to use the skill, not only what it is? The
 * forms are the ones real collections use, each a pattern below; a
 * description that matches none ("Toolkit for …", "Guidelines for …") is
 * flagged. Matching runs on the description with its whitespace collapsed,
 * so a folded or literal block scalar reads like one line.
 */

const WORD_END = "(?![\\p{L}\\p{N}])";
const WORD_START = "(?<![\\p{L}\\p{N}])";
/** Words that introduce the condition: "… when", "… before", "… for". */
const CONDITION = "(?:when|whenever|before|after|for|if|on|at|during|while|once|upon|in\\s+case)";
/** Narrower, for verbs whose "… for" or "… on" is an idiom ("calls for", "run on"). */
const STRICT_CONDITION = "(?:when|whenever|before|after|if|during|while|in\\s+case)";
/** Verbs an author uses to tell the agent to take the skill up. */
const TAKE_UP = "(?:use|load|invoke|activate|trigger)";
const CONSULT = "(?:apply|consult|read|call|run|select|choose|reach\\s+for)";
/** What may stand between the verb and the condition: the skill ("it", "this skill", "the skill", "skill" alone), and adverbs such as "only", "immediately", "first". */
const OBJECT = "(?:\\s+(?:it|(?:this\\s+|the\\s+)?skill|this|these|me|them))?";
/** One word naming what to take up, bare or as code: "Use rdkit for …", "use uipath-tasks for that", "Use `task-agent` for …". */
const NAMED = "(?:\\s+`?[\\p{L}\\p{N}._-]+`?)?";
const ADVERBS = "(?:\\s+(?:only|immediately|proactively|always|also|first|automatically|primarily|especially|mainly|right|directly|early|once|weekly|daily|regularly))*";
/** A parenthetical aside between verb and condition: "Load this skill first — before writing code and … — when …". */
const ASIDE = "(?:\\s*[—–-]{1,2}[^—–]{0,200}?[—–-]{1,2})?";

/** A word of a when-clause: "idea"; or a list separated by commas, "idea, feature, or concept", as one. */
const WORD = "[\\p{L}\\p{N}'-]+";
/**
 * After each comma, an "and" or "or" that follows is always the list's
 * conjunction, never one of its words, so a clause splits into words one way
 * only and a long line of commas is read once.
 */
const CLAUSE_WORD = `${WORD}(?:,\\s+(?:(?:and|or)\\s+)?(?!(?:and|or)\\s)${WORD}){0,8}`;

/**
 * Each form is made on first use: V8 parses a pattern when it is made, and
 * each `\p{L}` or `\p{N}` in it builds its class of code points anew, so
 * the forms no description reaches (most match one of the first) are never
 * parsed.
 */
const TRIGGER_FORMS: readonly (() => RegExp)[] = [
  // "Use when …", "Use it when …", "Use this skill whenever …", "Use immediately after …", "Load this skill first — … — when …", "Invoke when …"
  () => new RegExp(`${WORD_START}${TAKE_UP}${OBJECT}${ADVERBS}(?:\\s+or)?${ASIDE}\\s*,?\\s+${CONDITION}${WORD_END}`, "iu"),
  () => new RegExp(`${WORD_START}${CONSULT}${OBJECT}${ADVERBS}${ASIDE}\\s*,?\\s+${STRICT_CONDITION}${WORD_END}`, "iu"),
  // "Use to discover …", "Use this skill to get context …", "Use rdkit for advanced control", "Use at workday start",
  // "Use `review-agent` on implementation diffs …"
  () => new RegExp(`(?<![\\p{L}\\p{N}-])use${OBJECT}${NAMED}${ADVERBS}\\s+(?:to|for|at|on)\\s+\\p{L}`, "iu"),
  // "Use with task-agent or review-agent for …", "Use with named profiles for one decision": the partner named, then the purpose
  () => new RegExp(`(?<![\\p{L}\\p{N}-])use\\s+with\\s+[^.;:]{1,80}?\\s+(?:to|for|when|before|after|during)\\s+\\p{L}`, "iu"),
  // The other side of the boundary: "Not for affinity prediction", "For X, use the Y skill", "Breach → legal-contract-review",
  // "Do not use without a cache decision", "Don't use it for …"
  () => new RegExp(`${WORD_START}not\\s+for${WORD_END}|${WORD_START}for\\s[^.;]{1,160}?,\\s*use\\s|${WORD_START}(?:do\\s+not|don't|never)\\s+use(?:\\s+(?:it|(?:this\\s+|the\\s+)?skill|this))?\\s+(?:without|for|when|if|on|in|to)${WORD_END}`, "iu"),
  () => /(?:→|->)\s*(?:[a-z0-9]+(?:-[a-z0-9]+)+|[\p{L}-]+\s+skills?\b)|\buse\s+(?:the\s+)?[a-z0-9]+(?:-[a-z0-9]+)+(?:\s+skill)?\b/u,
  // "Preferred for …", "Applies to tasks involving …", "Default to @expo/ui for …", "ALWAYS use … FIRST", "When to use this skill: …"
  () => new RegExp(`${WORD_START}(?:preferred\\s+(?:for|when|over)|applies\\s+to|default\\s+to|always\\s+use|when\\s+to\\s+use)${WORD_END}`, "iu"),
  // "Fires on …", "also fires when …", "a gate before every git commit", "User-invoked", "Say "cliexpert" to start", "the entry point"
  () => new RegExp(`${WORD_START}(?:fires?\\s+(?:on|when|whenever|before|after)|gate\\s+before|user-invoked|entry\\s+point|say\\s+\\S+\\s+to\\s+(?:start|begin))${WORD_END}`, "iu"),
  // "… before proposing a fix", "… before making changes"
  () => new RegExp(`${WORD_START}before\\s+\\p{L}+ing${WORD_END}`, "iu"),
  // Japanese and Chinese: "…ときに使う", "「…」と言われたら使う", "…時使用"
  () => /(?:とき|時|场合|場合|際|たら)に?(?:使う|使用|呼ぶ)/u,
  // Japanese "…ときにトリガーする", "…時にトリガー。": the skill fires then; "…時にトリガーされるフック" ("a hook fired on …") names what it makes
  () => /(?:とき|時|場合|際|たら)に?トリガー(?:する|します|して|$|[。．.、,!！])/u,
  // Simplified and traditional Chinese "…时使用" ("use when …"), with the verbs and adverbs authors write: "时调用", "时主动使用", "時請使用"
  // and "…后使用" ("use after …"), "…时优先查阅" ("consult first when …"); 然后, 随后, 最后 and 以后 ("then", "finally", "later") start no condition
  () => /(?:[时時]|(?<![然随隨而最以])[后後])(?:请|請|应|應|应该|應該|可|可以|主动|主動|务必|務必|必须|必須|优先|優先|自动|自動|直接)?(?:使用|调用|調用|启用|啟用|加载|加載|載入|触发|觸發|查阅|查閱|参阅|參閱)/u,
  // "…之前使用", "提交前调用" ("use before …"); 目前, 以前, 此前, 先前, 从前 and 当前 ("now", "earlier") start no condition, and
  // "之前使用的库" or "之前使用过" ("the library used before", "used before") says what was used, not when to use the skill
  () => /(?<![目以此先从從当當眼提])前(?:请|請|应|應|应该|應該|可|可以|先|务必|務必|必须|必須|优先|優先)?(?:使用|调用|調用|启用|啟用|加载|加載|載入|触发|觸發|查阅|查閱|参阅|參閱)(?![的过過])/u,
  // "在以下情况下使用" ("use in the following cases"), "以下场景请调用"; "使用时：", "使用时机：", "使用场合：" ("when to use: …")
  () => /以下(?:情况|情況|情形|场景|場景|场合|場合)(?:下|中|时|時)?[，,]?(?:请|請|应|應|可|可以)?(?:使用|调用|調用|启用|啟用|加载|加載|載入|触发|觸發)|(?:使用|调用|調用|启用|啟用)(?:时机|時機|场合|場合|时|時)\s*[:：]/u,
  // "当用户要求…时" ("when the user asks …"), at the start of a clause ("…，或当…时") so that 相当, 适当 or 当前 do not count
  () => /(?:^|[\s，,。；;：:、（(「『"“'或且并並])[当當][^。．！？!?]{1,160}?[时時]/u,
  // The closing 时 is optional: "使用此 Skill 當使用者提及…" ("use this skill when the user mentions …"), "当需要…" ("when … is needed")
  () => /(?:使用|调用|調用|载入|載入|加载|加載|启用|啟用)(?:此|本|该|該|这个|這個)\s*(?:skill|技能)?\s*[当當](?![前时時地天日月年下中作成然初])|(?:^|[\s，,。；;：:、（(「『"“'或且并並])[当當](?:用户|用戶|使用者|需要|需|被要求|被问|被問|要求|遇到|涉及)/iu,
  // …and any other 当 that opens a clause ("当你需要…", "當專案…"), but the words it starts: 当前, 当然, 当地, 当天, 当下, 当作, 当心
  // ("current", "of course", "local", "that day", "now", "treat as", "beware") and the like
  () => /(?:^|[\s，,。；;：:、（(「『"“'或且并並])[当當](?![前时時地天日月年下中作做成然初代事选選面即局家场場今心真量期季周週晚值头頭归歸红紅铺鋪])[\p{Script=Han}A-Za-z]/u,
  // Japanese conditions a few words before the verb: "…が出たら必ずこのスキルを使用する", "…な場面で使用", "「…」などで使う", "…等のトリガーで使用"
  () => /(?:とき|場合|際|たら|場面|状況|時(?![間点代刻期]))[はにで]?[、,]?[^。．！？!?]{0,40}?(?:使う|使用|呼ぶ|呼び出|ロード|読み込|従う)|(?:など|等|場面|トリガー)で(?:使う|使用)/u,
  // "「アプリ起動」「クラッシュ確認」では必ず使う" ("always use it for …"), "…の整理で使う。" ("use it for tidying …"), "…でもロードする",
  // "…では必ずロードし、…", and the boundary "…では使わない", "…には使わない": "で" and the verb closing a sentence (or "必ず" and
  // the verb going on), so "Flutter で使うライブラリ" ("a library used in Flutter") does not count
  () => /(?:で|には|にも)(?:は|も)?[、,]?(?:(?:常に|まず|原則|主に)?(?:使う|使用する|ロードする|読み込む|使わない|使用しない)(?:こと)?(?:[。．.!！]|$)|必ず(?:使|使用|ロード|読み込))/u,
  // "触发词：…", "触发条件：…", "トリガー：…" ("Trigger words: …"); "适用于…" ("Applies to …"); "使用场景：…" ("Usage scenarios: …"); "用于…" opening a sentence or a clause ("Use for …", "…，用于非 BUG 小改动" "…, used for small changes"), "必须用于…" ("must be used for …")
  () => /(?:触发|觸發|トリガー)(?:词|詞|条件|條件|场景|場景|关键词|關鍵詞|短语|短語|ワード)?\s*(?:[（(][^）)]{0,60}[）)])?\s*[:：]|适用于|適用於|适用场景|適用場景|(?:使用|应用|應用)(?:场景|場景)\s*[:：]|(?:^|[。．.!?！？，,；;]\s*|必须|必須)(?:用于|用於)/u,
  // A hand-off to a named skill: "hand off to pptx-build", "Hands critique to doc-review"
  () => /\bhand(?:s|ing)?(?:\s+[\p{L}-]+){0,2}?\s+to\s+\**[a-z0-9]+(?:-[a-z0-9]+)+/iu,
  // "This skill should be used when …", "must be loaded before …", "is triggered when …"
  () => new RegExp(`${WORD_START}(?:should|must|can|is\\s+to|is\\s+meant\\s+to|is)\\s+(?:only\\s+)?be\\s+(?:used|loaded|invoked|activated|applied|consulted|read|triggered|called)${ADVERBS}\\s+${CONDITION}${WORD_END}`, "iu"),
  // "is used when …", "Activates when …", "Loaded only before …": the verbs inflected, with a condition that cannot be an idiom ("used for" names a purpose)
  () => new RegExp(`${WORD_START}(?:(?:is|are|gets?)\\s+)?(?:only\\s+)?(?:used|loaded|loads|invoked|invokes|activated|activates|triggered|applied)\\s+(?:only\\s+|automatically\\s+)?${STRICT_CONDITION}${WORD_END}`, "iu"),
  // "Activates for requests involving …", "Triggered on any mention of …", "Loaded for tasks that …": "for" or "on" the requests that take it
  // up, which no purpose is ("used for data" names one, and stays out)
  () => new RegExp(`${WORD_START}(?:activates|activated|triggers|triggered|invoked|invokes|loads|loaded)\\s+(?:only\\s+|automatically\\s+)?(?:for|on)\\s+(?:(?:any|all|every|each)\\s+)?(?:requests?|tasks?|queries|questions?|prompts?|mentions?|keywords?|messages?)${WORD_END}`, "iu"),
  // "Auto-invoked when/for …", "Auto-activates on keywords like …", "Auto-loads before …": "auto-" names the taking up, so "for" and "on" count too
  () => new RegExp(`${WORD_START}auto-?(?:invoke[sd]?|activate[sd]?|trigger(?:s|ed)?|loads?|loaded|appl(?:y|ies|ied))\\s+(?:only\\s+)?(?:${CONDITION}|by)${WORD_END}`, "iu"),
  // "WHEN: migrating a database …", "… tooling. When: the user asks …": the condition as a label, capitalised as labels are
  () => /(?<![\p{L}\p{N}])WHEN(?:EVER)?\s*[:：]|(?:^|[.!?;]\s+)When(?:ever)?\s*[:：]/u,
  // "TRIGGER when …", "TRIGGER —", "Triggers on …", "Trigger keywords:", "Triggers: …"
  () => new RegExp(`${WORD_START}trigger(?:s|ed)?(?:\\s+(?:keywords?|phrases?|words?|conditions?))?\\s*(?:[:—–]|-{1,2}\\s|${CONDITION}${WORD_END})`, "iu"),
  // "Trigger with "check for todos" or …", "Triggered by phrases like …": the words that take the skill up, quoted or named as such
  () => new RegExp(`${WORD_START}trigger(?:s|ed)?\\s+(?:with|by)\\s*:?\\s*(?:["“'‘「]|(?:phrases?|keywords?|words?|mentions?|requests?)${WORD_END})`, "iu"),
  // A description that opens with the condition: "When the user asks …", "Whenever …", "Before committing, …"
  () => new RegExp(`^(?:${CONDITION})\\s`, "iu"),
  // …and a later sentence or clause that does, capitalised as a sentence is: "… . When the user asks …", "CRITICAL - Before ANY file write, …"
  () => /(?:[.!?:;]|\s[—–-]{1,2})\s+(?:When|Whenever|Before|WHEN|WHENEVER|BEFORE)\s/u,
  // "… when backlogs already exist", "when unresolved decisions should be answered", "when an idea has been discussed",
  // "when an idea, feature, or concept has been discussed": a situation stated as a clause, up to six words before its verb, a list counting as one
  () => new RegExp(`${WORD_START}(?:when|whenever)\\s+(?:${CLAUSE_WORD}\\s+){1,6}?(?:already\\s+|still\\s+|not\\s+)?(?:exists?|is|are|has|have|had|should|needs?|must|was|were|becomes?|seems?|appears?|fails?|breaks?|changes?|arrives?)${WORD_END}`, "iu"),
  // A description that opens with what the user wants: "User wants to send a message …"
  () => /^(?:the\s+|a\s+)?user\s+(?:wants|asks|needs|says|requests|mentions)\b/iu,
  // "… when building new UI", "when asked to …", "when the user wants …", "whenever someone asks …"
  () => new RegExp(`${WORD_START}(?:when|whenever)\\s+(?:\\p{L}+ing|asked|prompted|requested|the\\s+user|a\\s+user|users?|you|someone|anyone|an?\\s+agent|the\\s+agent|the\\s+task|a\\s+task|the\\s+request|a\\s+request|the\\s+prompt|the\\s+project|a\\s+project|the\\s+codebase|about\\s+to|unsure|in\\s+doubt|not\\s+sure)${WORD_END}`, "iu"),
];

/**
 * A description whose trigger the forms above could miss because it is
 * written in another language: the rule judges English, Chinese and Japanese,
 * and a finding on a Spanish or Korean description would be a guess.
 */
export function lacksTrigger(description: string): boolean {
  // Most descriptions state a trigger: the language is looked at only for the few that state none.
  return !statesTrigger(description) && inJudgedLanguage(description);
}

/** The classes that tell the language, made (like the forms) only when a description with no trigger needs them. */
interface LanguageClasses {
  readonly hanOrKana: RegExp;
  readonly hanOrKanaLetter: RegExp;
  readonly latin: RegExp;
  readonly letter: RegExp;
  /** A letter of a script other than Latin (Han and Kana are told apart before it is asked). */
  readonly nonLatin: RegExp;
}
let languageClasses: LanguageClasses | undefined;
function makeLanguageClasses(): LanguageClasses {
  return {
    hanOrKana: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
    // By script extension, so the long vowel mark ー and the iteration mark 々 count with the text around them.
    hanOrKanaLetter: /(?=\p{L})[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/gu,
    latin: /\p{Script=Latin}/gu,
    letter: /\p{L}/gu,
    nonLatin: /(?=\p{L})\P{Script=Latin}/u,
  };
}
/**
 * Words of English prose that other languages written in Latin letters do not
 * use: function words, and the verbs descriptions open with ("Create a new
 * event", "Send an email"). A description with none of them, and none of the
 * other languages' words either, is not judged: it may be German or Italian
 * written with words neither list holds. "Skill" and "use" are not among them:
 * "Skill para … Use quando precisar …" is Portuguese, and both words are its own.
 */
const ENGLISH_WORDS = new Set([
  "the", "and", "to", "of", "for", "with", "when", "whenever", "this", "that", "using", "used", "your", "you", "it", "from", "by", "into", "or", "any", "should", "before", "after", "is", "are", "be", "user", "asks",
  "an", "all", "new", "on", "at", "as", "its", "their", "how", "what", "which", "yet", "across", "without", "about", "within", "upcoming", "each", "every",
  "create", "creates", "show", "shows", "send", "sends", "generate", "generates", "write", "writes", "writing", "make", "makes", "build", "builds", "run", "runs",
  "add", "adds", "get", "gets", "find", "finds", "check", "checks", "review", "reviews", "manage", "manages", "help", "helps", "explore", "explores", "set", "sets", "update", "updates",
]);
/** Words of Spanish, Portuguese, French, German, Italian and Dutch prose that English does not use. */
const OTHER_LATIN_WORDS = new Set([
  "de", "la", "el", "los", "las", "que", "y", "para", "con", "cuando", "esta", "este", "una", "por", "del", "se", "usa", "usar", "utiliza",
  "da", "das", "dos", "quando", "não", "com", "uma", "um", "o", "em", "pelo", "ao",
  "le", "les", "des", "du", "et", "est", "pour", "avec", "quand", "lorsque", "utilise", "utiliser", "une",
  "der", "und", "ist", "für", "mit", "wenn", "zu", "ein", "eine", "verwende", "verwenden", "sie", "nutze",
  "il", "di", "che", "gli", "usare",
  "het", "een", "voor", "wanneer", "gebruik",
  "beim", "von", "im", "auf", "den", "dem", "bei", "aus", "nach", "oder", "nicht", "auch", "durch", "über", "zum", "zur", "wird", "werden", "sich",
  "della", "delle", "dei", "degli", "alla", "nel", "nella", "come", "oppure", "questo", "questa",
  "om", "naar", "te", "van", "op", "bij", "niet", "ook", "wordt", "deze", "dit",
  "en", "al", "sus", "su", "como", "sobre", "desde",
  "au", "aux", "sur", "dans", "par", "cette", "ces", "ou", "qui", "votre", "vos",
  "ao", "seu", "sua", "ou", "sem", "mais", "precisar", "precisa", "deve", "seus", "suas", "isso", "também", "pela", "pelos", "nas",
]);

function inJudgedLanguage(description: string): boolean {
  const { hanOrKana, hanOrKanaLetter, latin: latinLetter, letter, nonLatin } = (languageClasses ??= makeLanguageClasses());
  const letters = description.match(letter)?.length ?? 0;
  if (letters === 0) return true;
  const latin = description.match(latinLetter)?.length ?? 0;
  const judged = latin + (hanOrKana.test(description) ? (description.match(hanOrKanaLetter)?.length ?? 0) : 0);
  // Cyrillic, Hangul, Arabic and the other scripts: no forms for them here. A fifth of the letters in one of them is
  // a description in that language, even where English keywords make up the rest ("Активируется при epic, story, …").
  if ((letters - judged) * 5 >= letters) return false;
  if (judged > latin) return true;
  let english = 0;
  let other = 0;
  let unjudgedScript = 0;
  for (const word of description.toLowerCase().split(/[^\p{L}]+/u)) {
    if (ENGLISH_WORDS.has(word)) english++;
    else if (OTHER_LATIN_WORDS.has(word)) other++;
    else if (nonLatin.test(word)) unjudgedScript++;
  }
  // As many words in such a script as English function words: the sentence is theirs, its nouns English
  // ("Создаёт epic и story в Jira for the team"); one name written so in English prose is outweighed.
  if (unjudgedScript > 0 && unjudgedScript >= english) return false;
  // Latin letters with no word of either list: a language with no forms here, unless English shows.
  return english > 0 && other <= english;
}

const madeForms: RegExp[] = [];

export function statesTrigger(description: string): boolean {
  const text = description.replace(/\s+/g, " ").trim();
  return TRIGGER_FORMS.some((makeForm, index) => (madeForms[index] ??= makeForm()).test(text));
}
