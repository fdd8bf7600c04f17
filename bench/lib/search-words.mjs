/**
 * The vocabulary of `npm run bench -- search` (every file's name, metadata and text are drawn from it), shared with
 * `npm run bench -- search-shards`, which asks the same cold words of the same index.
 */
export const WORDS = (
  "пляж море песок закат рассвет горы лес река озеро город улица площадь мост парк сад дом окно дверь крыша " +
  "интервью репортаж съемка кадр портрет пейзаж фото видео звук музыка концерт праздник свадьба выставка музей театр " +
  "зима весна лето осень снег дождь ветер солнце облако небо " +
  "отчет договор смета сценарий план проект бюджет презентация заметка письмо " +
  "beach sea sand sunset sunrise mountain forest river lake city street square bridge park garden house window door " +
  "interview report shoot frame portrait landscape photo video sound music concert holiday wedding exhibition museum " +
  "winter spring summer autumn snow rain wind sun cloud sky contract budget script plan project note letter"
).split(" ");

/** The words the search bench asks repeatedly (cached answers); the cold rows ask the others. */
const REPEATED = ["пляж", "закат", "море", "summer", "лес", WORDS[3 % WORDS.length]];

/** Words never asked before in a run, in a fixed order: the search bench's cold rows take them COLD at a time. */
export const FRESH_WORDS = WORDS.filter((w) => !REPEATED.includes(w));
