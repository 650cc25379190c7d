// The hero catalog that ships inside hero-catalog-service: original text written for this project.

/// The catalog `hero-catalog-service` serves when it is started without `--catalog FILE`.
///
/// Every name and intro was written for this project: the heroes are figures from myth, history,
/// literature, science and exploration, each given an original epithet and a one- or two-sentence
/// intro in Simplified Chinese, Traditional Chinese and English. Nothing is copied from games or other
/// projects. The format is described in docs/services/hero-catalog-data.md.
public enum BuiltInCatalog {
    /// The catalog as a JSON array, one object per hero in catalog order, ids 1 to 151:
    /// `{"id", "name": {"zh-Hans", "zh-Hant", "en"}, "intro": {"zh-Hans", "zh-Hant", "en"}, "icon"}`,
    /// where `icon` is a file name `hero-NNN.png`.
    public static let json: String = #"""
        [
        {
          "id": 1,
          "name": {
            "zh-Hans": "射日者后羿",
            "zh-Hant": "射日者后羿",
            "en": "Hou Yi, Archer of Ten Suns"
          },
          "intro": {
            "zh-Hans": "他射落九个炽烈的太阳，只留下一个温暖大地。",
            "zh-Hant": "他射落九個熾烈的太陽，只留下一個溫暖大地。",
            "en": "He shot nine blazing suns out of the sky and spared the tenth to keep the fields warm."
          },
          "icon": "hero-001.png"
        },
        {
          "id": 2,
          "name": {
            "zh-Hans": "补天的女娲",
            "zh-Hant": "補天的女媧",
            "en": "Nüwa, Mender of the Sky"
          },
          "intro": {
            "zh-Hans": "天柱崩裂之时，她炼五色石修补苍穹。",
            "zh-Hant": "天柱崩裂之時，她煉五色石修補蒼穹。",
            "en": "When the pillars of heaven cracked, she melted stones of five colours to patch the sky."
          },
          "icon": "hero-002.png"
        },
        {
          "id": 3,
          "name": {
            "zh-Hans": "开天辟地的盘古",
            "zh-Hant": "開天闢地的盤古",
            "en": "Pangu, Splitter of Chaos"
          },
          "intro": {
            "zh-Hans": "他在混沌之卵中醒来，用一万八千年把天地撑开。",
            "zh-Hant": "他在混沌之卵中醒來，用一萬八千年把天地撐開。",
            "en": "He woke inside a cosmic egg and held earth and sky apart for eighteen thousand years."
          },
          "icon": "hero-003.png"
        },
        {
          "id": 4,
          "name": {
            "zh-Hans": "填海的精卫",
            "zh-Hant": "填海的精衛",
            "en": "Jingwei, the Bird Who Fills the Sea"
          },
          "intro": {
            "zh-Hans": "少女溺水而亡，化身小鸟，衔来石子誓要填平吞没她的大海。",
            "zh-Hant": "少女溺水而亡，化身小鳥，銜來石子誓要填平吞沒她的大海。",
            "en": "Drowned as a girl, she came back as a bird that drops pebbles into the sea that took her."
          },
          "icon": "hero-004.png"
        },
        {
          "id": 5,
          "name": {
            "zh-Hans": "逐日的夸父",
            "zh-Hant": "逐日的夸父",
            "en": "Kuafu, Chaser of the Sun"
          },
          "intro": {
            "zh-Hans": "巨人追赶太阳横越大地，一路饮尽了河水。",
            "zh-Hant": "巨人追趕太陽橫越大地，一路飲盡了河水。",
            "en": "A giant who raced the sun across the world and drank whole rivers dry on the way."
          },
          "icon": "hero-005.png"
        },
        {
          "id": 6,
          "name": {
            "zh-Hans": "治水的大禹",
            "zh-Hant": "治水的大禹",
            "en": "Yu the Great, Tamer of Floods"
          },
          "intro": {
            "zh-Hans": "他疏浚河道十三年，三过家门而不入。",
            "zh-Hant": "他疏浚河道十三年，三過家門而不入。",
            "en": "He dug channels for thirteen years and passed his own door three times without going in."
          },
          "icon": "hero-006.png"
        },
        {
          "id": 7,
          "name": {
            "zh-Hans": "奔月的嫦娥",
            "zh-Hant": "奔月的嫦娥",
            "en": "Chang'e, Lady of the Moon"
          },
          "intro": {
            "zh-Hans": "她吞下不死仙药，飘然升入清冷的月宫。",
            "zh-Hant": "她吞下不死仙藥，飄然升入清冷的月宮。",
            "en": "She swallowed the elixir of immortality and drifted up to the cold palace of the moon."
          },
          "icon": "hero-007.png"
        },
        {
          "id": 8,
          "name": {
            "zh-Hans": "花果山猴王孙悟空",
            "zh-Hant": "花果山猴王孫悟空",
            "en": "Sun Wukong, Monkey King of Flower-Fruit Mountain"
          },
          "intro": {
            "zh-Hans": "他从石中诞生，学会七十二变，曾大闹天宫。",
            "zh-Hant": "他從石中誕生，學會七十二變，曾大鬧天宮。",
            "en": "Born from a stone, he mastered seventy-two transformations and once fought all of heaven."
          },
          "icon": "hero-008.png"
        },
        {
          "id": 9,
          "name": {
            "zh-Hans": "莲花化身的哪吒",
            "zh-Hant": "蓮花化身的哪吒",
            "en": "Nezha, the Lotus-Born Boy"
          },
          "intro": {
            "zh-Hans": "脚踏风火轮的少年战神，因反抗龙王而以莲藕重塑肉身。",
            "zh-Hant": "腳踏風火輪的少年戰神，因反抗龍王而以蓮藕重塑肉身。",
            "en": "A boy warrior on wheels of wind and fire, remade from lotus roots after defying a dragon."
          },
          "icon": "hero-009.png"
        },
        {
          "id": 10,
          "name": {
            "zh-Hans": "东海龙王敖广",
            "zh-Hant": "東海龍王敖廣",
            "en": "Ao Guang, Dragon King of the Eastern Sea"
          },
          "intro": {
            "zh-Hans": "东海之主，在波涛下的珍珠宫殿中掌管行云布雨。",
            "zh-Hant": "東海之主，在波濤下的珍珠宮殿中掌管行雲布雨。",
            "en": "Lord of the eastern waters, who keeps a pearl palace beneath the waves and sends the rain."
          },
          "icon": "hero-010.png"
        },
        {
          "id": 11,
          "name": {
            "zh-Hans": "三眼神将二郎神",
            "zh-Hant": "三眼神將二郎神",
            "en": "Erlang Shen, the Three-Eyed Guardian"
          },
          "intro": {
            "zh-Hans": "额生第三只眼，能看穿一切变化，与忠犬并肩降妖。",
            "zh-Hant": "額生第三隻眼，能看穿一切變化，與忠犬並肩降妖。",
            "en": "A god whose third eye sees through every disguise, hunting demons beside his loyal hound."
          },
          "icon": "hero-011.png"
        },
        {
          "id": 12,
          "name": {
            "zh-Hans": "忠义之刃关羽",
            "zh-Hant": "忠義之刃關羽",
            "en": "Guan Yu, the Loyal Blade"
          },
          "intro": {
            "zh-Hans": "三国名将，因忠义而被奉为武圣与商贾的守护神。",
            "zh-Hant": "三國名將，因忠義而被奉為武聖與商賈的守護神。",
            "en": "A general of the Three Kingdoms whose loyalty made him a god of war and of honest trade."
          },
          "icon": "hero-012.png"
        },
        {
          "id": 13,
          "name": {
            "zh-Hans": "卧龙诸葛亮",
            "zh-Hant": "臥龍諸葛亮",
            "en": "Zhuge Liang, the Sleeping Dragon"
          },
          "intro": {
            "zh-Hans": "通晓天文地理的谋士，据说他的计策未战先胜。",
            "zh-Hant": "通曉天文地理的謀士，據說他的計策未戰先勝。",
            "en": "A strategist who read wind and stars; his plans won battles before they began."
          },
          "icon": "hero-013.png"
        },
        {
          "id": 14,
          "name": {
            "zh-Hans": "长坂之龙赵子龙",
            "zh-Hant": "長坂之龍趙子龍",
            "en": "Zhao Yun, Dragon of Changban"
          },
          "intro": {
            "zh-Hans": "他在长坂坡怀抱幼主单骑突围，毫发无伤。",
            "zh-Hant": "他在長坂坡懷抱幼主單騎突圍，毫髮無傷。",
            "en": "He carried an infant lord through an enemy host at Changban and rode out unharmed."
          },
          "icon": "hero-014.png"
        },
        {
          "id": 15,
          "name": {
            "zh-Hans": "替父从军的花木兰",
            "zh-Hant": "替父從軍的花木蘭",
            "en": "Hua Mulan, the Daughter in Armour"
          },
          "intro": {
            "zh-Hans": "她代父从军十二载，同袍始终不知她是女儿身。",
            "zh-Hant": "她代父從軍十二載，同袍始終不知她是女兒身。",
            "en": "She took her father's place in the army and served twelve years before anyone knew."
          },
          "icon": "hero-015.png"
        },
        {
          "id": 16,
          "name": {
            "zh-Hans": "出塞的王昭君",
            "zh-Hant": "出塞的王昭君",
            "en": "Wang Zhaojun, Bride of the Frontier"
          },
          "intro": {
            "zh-Hans": "宫女远嫁塞外，为边疆带来数十年和平。",
            "zh-Hant": "宮女遠嫁塞外，為邊疆帶來數十年和平。",
            "en": "A palace lady who rode north to marry a steppe ruler and brought decades of peace."
          },
          "icon": "hero-016.png"
        },
        {
          "id": 17,
          "name": {
            "zh-Hans": "精忠报国的岳飞",
            "zh-Hant": "精忠報國的岳飛",
            "en": "Yue Fei, General of Loyal Ink"
          },
          "intro": {
            "zh-Hans": "南宋名将，相传母亲在他背上刺下“精忠报国”四字。",
            "zh-Hant": "南宋名將，相傳母親在他背上刺下「精忠報國」四字。",
            "en": "A Song general whose mother, the story says, inked four words of loyalty on his back."
          },
          "icon": "hero-017.png"
        },
        {
          "id": 18,
          "name": {
            "zh-Hans": "汨罗江畔的诗人屈原",
            "zh-Hant": "汨羅江畔的詩人屈原",
            "en": "Qu Yuan, Poet of the Miluo"
          },
          "intro": {
            "zh-Hans": "忠臣诗人因国破而投江，至今人们仍划龙舟纪念他。",
            "zh-Hant": "忠臣詩人因國破而投江，至今人們仍划龍舟紀念他。",
            "en": "A minister who drowned himself in grief for his kingdom; dragon boats still race for him."
          },
          "icon": "hero-018.png"
        },
        {
          "id": 19,
          "name": {
            "zh-Hans": "诗仙李白",
            "zh-Hant": "詩仙李白",
            "en": "Li Bai, Immortal of Poetry"
          },
          "intro": {
            "zh-Hans": "浪迹天涯的诗人，举杯邀月，落笔如江河奔流。",
            "zh-Hant": "浪跡天涯的詩人，舉杯邀月，落筆如江河奔流。",
            "en": "A wandering poet who drank with the moon and wrote verses as freely as rivers run."
          },
          "icon": "hero-019.png"
        },
        {
          "id": 20,
          "name": {
            "zh-Hans": "宝船舰队统帅郑和",
            "zh-Hant": "寶船艦隊統帥鄭和",
            "en": "Zheng He, Admiral of the Treasure Fleet"
          },
          "intro": {
            "zh-Hans": "他七下西洋，率庞大船队远航至非洲海岸。",
            "zh-Hant": "他七下西洋，率龐大船隊遠航至非洲海岸。",
            "en": "He led vast fleets across the Indian Ocean seven times, reaching the coast of Africa."
          },
          "icon": "hero-020.png"
        },
        {
          "id": 21,
          "name": {
            "zh-Hans": "测震者张衡",
            "zh-Hant": "測震者張衡",
            "en": "Zhang Heng, Reader of Earthquakes"
          },
          "intro": {
            "zh-Hans": "天文学家，造铜仪以落珠指示地震方位。",
            "zh-Hant": "天文學家，造銅儀以落珠指示地震方位。",
            "en": "An astronomer who built a bronze vessel that dropped a ball toward a distant earthquake."
          },
          "icon": "hero-021.png"
        },
        {
          "id": 22,
          "name": {
            "zh-Hans": "造纸的蔡伦",
            "zh-Hant": "造紙的蔡倫",
            "en": "Cai Lun, Maker of Paper"
          },
          "intro": {
            "zh-Hans": "宫廷官员，相传以树皮、麻头和破布造出纸张。",
            "zh-Hant": "宮廷官員，相傳以樹皮、麻頭和破布造出紙張。",
            "en": "A court official credited with turning bark, hemp and old rags into paper."
          },
          "icon": "hero-022.png"
        },
        {
          "id": 23,
          "name": {
            "zh-Hans": "铁面判官包拯",
            "zh-Hant": "鐵面判官包拯",
            "en": "Bao Zheng, Judge with the Iron Face"
          },
          "intro": {
            "zh-Hans": "清廉如铁的判官，民间传说他面黑如炭、额有月牙。",
            "zh-Hant": "清廉如鐵的判官，民間傳說他面黑如炭、額有月牙。",
            "en": "A judge so upright that folk tales gave him a black face and a crescent moon on his brow."
          },
          "icon": "hero-023.png"
        },
        {
          "id": 24,
          "name": {
            "zh-Hans": "打虎英雄武松",
            "zh-Hant": "打虎英雄武松",
            "en": "Wu Song, Slayer of the Tiger"
          },
          "intro": {
            "zh-Hans": "水泊好汉，在景阳冈赤手空拳打死猛虎。",
            "zh-Hant": "水泊好漢，在景陽岡赤手空拳打死猛虎。",
            "en": "An outlaw hero who killed a man-eating tiger on Jingyang Ridge with his bare fists."
          },
          "icon": "hero-024.png"
        },
        {
          "id": 25,
          "name": {
            "zh-Hans": "落难教头林冲",
            "zh-Hant": "落難教頭林沖",
            "en": "Lin Chong, Drill Master in Exile"
          },
          "intro": {
            "zh-Hans": "禁军枪棒教头遭奸臣陷害，终在风雪中走上梁山。",
            "zh-Hant": "禁軍槍棒教頭遭奸臣陷害，終在風雪中走上梁山。",
            "en": "An imperial spear instructor, wronged by a corrupt marshal, who turned outlaw in the snow."
          },
          "icon": "hero-025.png"
        },
        {
          "id": 26,
          "name": {
            "zh-Hans": "哭倒长城的孟姜女",
            "zh-Hant": "哭倒長城的孟姜女",
            "en": "Meng Jiangnü, Whose Tears Broke the Wall"
          },
          "intro": {
            "zh-Hans": "她为修长城而死的丈夫痛哭，直到城墙崩塌一段。",
            "zh-Hant": "她為修長城而死的丈夫痛哭，直到城牆崩塌一段。",
            "en": "She wept for a husband lost to the labour of the Great Wall until a stretch of it fell."
          },
          "icon": "hero-026.png"
        },
        {
          "id": 27,
          "name": {
            "zh-Hans": "尝百草的神农",
            "zh-Hant": "嘗百草的神農",
            "en": "Shennong, Taster of a Hundred Herbs"
          },
          "intro": {
            "zh-Hans": "神农氏遍尝百草，辨明哪些能治病、哪些会伤身。",
            "zh-Hant": "神農氏遍嘗百草，辨明哪些能治病、哪些會傷身。",
            "en": "The divine farmer who tasted every plant to learn which ones heal and which ones harm."
          },
          "icon": "hero-027.png"
        },
        {
          "id": 28,
          "name": {
            "zh-Hans": "四目造字的仓颉",
            "zh-Hant": "四目造字的倉頡",
            "en": "Cangjie, the Four-Eyed Scribe"
          },
          "intro": {
            "zh-Hans": "他观察鸟兽足迹，创造了最初的文字。",
            "zh-Hant": "他觀察鳥獸足跡，創造了最初的文字。",
            "en": "He studied the tracks of birds and beasts and shaped the first written characters."
          },
          "icon": "hero-028.png"
        },
        {
          "id": 29,
          "name": {
            "zh-Hans": "轩辕黄帝",
            "zh-Hant": "軒轅黃帝",
            "en": "Xuanyuan, the Yellow Emperor"
          },
          "intro": {
            "zh-Hans": "传说中的始祖，教百姓造车、造船。",
            "zh-Hant": "傳說中的始祖，教百姓造車、造船。",
            "en": "A legendary sovereign said to have taught his people to build carts and boats."
          },
          "icon": "hero-029.png"
        },
        {
          "id": 30,
          "name": {
            "zh-Hans": "兵主蚩尤",
            "zh-Hant": "兵主蚩尤",
            "en": "Chiyou, Lord of Storms and Bronze"
          },
          "intro": {
            "zh-Hans": "铜头铁额的战神，曾呼风唤雾与黄帝大战。",
            "zh-Hant": "銅頭鐵額的戰神，曾呼風喚霧與黃帝大戰。",
            "en": "A bronze-browed war god who raised fog and storm against the Yellow Emperor."
          },
          "icon": "hero-030.png"
        },
        {
          "id": 31,
          "name": {
            "zh-Hans": "瑶池西王母",
            "zh-Hant": "瑤池西王母",
            "en": "Xiwangmu, Queen Mother of the West"
          },
          "intro": {
            "zh-Hans": "昆仑山上的女神，守护着长生不老的蟠桃。",
            "zh-Hant": "崑崙山上的女神，守護著長生不老的蟠桃。",
            "en": "Keeper of the peaches of immortality in her garden on Mount Kunlun."
          },
          "icon": "hero-031.png"
        },
        {
          "id": 32,
          "name": {
            "zh-Hans": "捉鬼天师钟馗",
            "zh-Hant": "捉鬼天師鍾馗",
            "en": "Zhong Kui, Hunter of Ghosts"
          },
          "intro": {
            "zh-Hans": "因相貌丑陋而落第的书生，成为驱鬼除魔的神祇。",
            "zh-Hant": "因相貌醜陋而落第的書生，成為驅鬼除魔的神祇。",
            "en": "A scholar denied his honours because of his looks, who became the fierce chaser of demons."
          },
          "icon": "hero-032.png"
        },
        {
          "id": 33,
          "name": {
            "zh-Hans": "西湖白蛇白素贞",
            "zh-Hant": "西湖白蛇白素貞",
            "en": "Bai Suzhen, the White Snake of West Lake"
          },
          "intro": {
            "zh-Hans": "修炼千年的白蛇化为人形，为救夫君水漫金山。",
            "zh-Hant": "修煉千年的白蛇化為人形，為救夫君水漫金山。",
            "en": "A snake spirit who took human form for love and flooded a temple to free her husband."
          },
          "icon": "hero-033.png"
        },
        {
          "id": 34,
          "name": {
            "zh-Hans": "化蝶的祝英台",
            "zh-Hant": "化蝶的祝英台",
            "en": "Zhu Yingtai, the Butterfly Lover"
          },
          "intro": {
            "zh-Hans": "她女扮男装求学，最终与恋人化作一对蝴蝶。",
            "zh-Hant": "她女扮男裝求學，最終與戀人化作一對蝴蝶。",
            "en": "She studied disguised as a young man and rose with her beloved as a pair of butterflies."
          },
          "icon": "hero-034.png"
        },
        {
          "id": 35,
          "name": {
            "zh-Hans": "直钩垂钓的姜子牙",
            "zh-Hant": "直鉤垂釣的姜子牙",
            "en": "Jiang Ziya, Angler with a Straight Hook"
          },
          "intro": {
            "zh-Hans": "他以直钩无饵垂钓，等待值得辅佐的明君。",
            "zh-Hant": "他以直鉤無餌垂釣，等待值得輔佐的明君。",
            "en": "He fished with a straight hook and no bait, waiting for a king worth serving."
          },
          "icon": "hero-035.png"
        },
        {
          "id": 36,
          "name": {
            "zh-Hans": "兵圣孙武",
            "zh-Hant": "兵聖孫武",
            "en": "Sun Wu, Author of the Art of War"
          },
          "intro": {
            "zh-Hans": "将军所著的兵法十三篇，至今仍为人研读。",
            "zh-Hant": "將軍所著的兵法十三篇，至今仍為人研讀。",
            "en": "A general whose thirteen chapters on strategy are still read by commanders today."
          },
          "icon": "hero-036.png"
        },
        {
          "id": 37,
          "name": {
            "zh-Hans": "西行求法的玄奘",
            "zh-Hant": "西行求法的玄奘",
            "en": "Xuanzang, Pilgrim to the West"
          },
          "intro": {
            "zh-Hans": "僧人徒步往返天竺十七年，带回大量经卷。",
            "zh-Hant": "僧人徒步往返天竺十七年，帶回大量經卷。",
            "en": "A monk who walked to India and back over seventeen years to bring home sacred texts."
          },
          "icon": "hero-037.png"
        },
        {
          "id": 38,
          "name": {
            "zh-Hans": "凿空西域的张骞",
            "zh-Hant": "鑿空西域的張騫",
            "en": "Zhang Qian, Opener of the Silk Road"
          },
          "intro": {
            "zh-Hans": "出使西域的使者被囚十年，脱身之后仍完成了西行使命。",
            "zh-Hant": "出使西域的使者被囚十年，脫身之後仍完成了西行使命。",
            "en": "An envoy held captive for ten years who escaped and still finished his journey west."
          },
          "icon": "hero-038.png"
        },
        {
          "id": 39,
          "name": {
            "zh-Hans": "书圣王羲之",
            "zh-Hant": "書聖王羲之",
            "en": "Wang Xizhi, Sage of Calligraphy"
          },
          "intro": {
            "zh-Hans": "书法家笔力雄健，相传墨迹入木三分。",
            "zh-Hant": "書法家筆力雄健，相傳墨跡入木三分。",
            "en": "A calligrapher whose brush, it was said, pressed ink three-tenths of an inch into wood."
          },
          "icon": "hero-039.png"
        },
        {
          "id": 40,
          "name": {
            "zh-Hans": "西楚霸王项羽",
            "zh-Hant": "西楚霸王項羽",
            "en": "Xiang Yu, Hegemon-King of Western Chu"
          },
          "intro": {
            "zh-Hans": "力能扛鼎的霸王，破釜沉舟以示绝不撤退。",
            "zh-Hant": "力能扛鼎的霸王，破釜沉舟以示絕不撤退。",
            "en": "A warrior of fearsome strength who broke his own cooking pots so no one would retreat."
          },
          "icon": "hero-040.png"
        },
        {
          "id": 41,
          "name": {
            "zh-Hans": "本草学者李时珍",
            "zh-Hant": "本草學者李時珍",
            "en": "Li Shizhen, Compiler of Herbs"
          },
          "intro": {
            "zh-Hans": "医学家走访各地数十年，记录近两千种药物。",
            "zh-Hant": "醫學家走訪各地數十年，記錄近兩千種藥物。",
            "en": "A physician who travelled for decades to describe nearly two thousand medicines."
          },
          "icon": "hero-041.png"
        },
        {
          "id": 42,
          "name": {
            "zh-Hans": "女皇武则天",
            "zh-Hant": "女皇武則天",
            "en": "Wu Zetian, the Only Empress"
          },
          "intro": {
            "zh-Hans": "中国历史上唯一以自己名义称帝的女性。",
            "zh-Hant": "中國歷史上唯一以自己名義稱帝的女性。",
            "en": "The only woman in Chinese history to rule as emperor in her own name."
          },
          "icon": "hero-042.png"
        },
        {
          "id": 43,
          "name": {
            "zh-Hans": "火焰山铁扇公主",
            "zh-Hant": "火焰山鐵扇公主",
            "en": "Princess Iron Fan of Flaming Mountain"
          },
          "intro": {
            "zh-Hans": "她的芭蕉扇一扇，便能把人吹出五万里。",
            "zh-Hant": "她的芭蕉扇一扇，便能把人吹出五萬里。",
            "en": "Her palm-leaf fan could raise a gale that blew a traveller fifty thousand li away."
          },
          "icon": "hero-043.png"
        },
        {
          "id": 44,
          "name": {
            "zh-Hans": "好龙的叶公",
            "zh-Hant": "好龍的葉公",
            "en": "Ye Gong, Who Loved Dragons"
          },
          "intro": {
            "zh-Hans": "他满屋雕龙画龙，真龙来访时却吓得逃走。",
            "zh-Hant": "他滿屋雕龍畫龍，真龍來訪時卻嚇得逃走。",
            "en": "A lord who covered his house with carved dragons, then fled when a real one came to visit."
          },
          "icon": "hero-044.png"
        },
        {
          "id": 45,
          "name": {
            "zh-Hans": "卧薪尝胆的越王勾践",
            "zh-Hant": "臥薪嘗膽的越王勾踐",
            "en": "Goujian, the King Who Tasted Gall"
          },
          "intro": {
            "zh-Hans": "战败的越王卧薪尝胆，终于复国雪耻。",
            "zh-Hant": "戰敗的越王臥薪嘗膽，終於復國雪恥。",
            "en": "A defeated king who slept on brushwood and tasted bitter gall until he won back his realm."
          },
          "icon": "hero-045.png"
        },
        {
          "id": 46,
          "name": {
            "zh-Hans": "完成十二伟业的赫拉克勒斯",
            "zh-Hant": "完成十二偉業的赫拉克勒斯",
            "en": "Heracles, Bearer of Twelve Labours"
          },
          "intro": {
            "zh-Hans": "宙斯之子，在摇篮中扼死毒蛇，长大后完成十二项艰巨任务。",
            "zh-Hant": "宙斯之子，在搖籃中扼死毒蛇，長大後完成十二項艱鉅任務。",
            "en": "A son of Zeus who strangled serpents in his cradle and later finished twelve great tasks."
          },
          "icon": "hero-046.png"
        },
        {
          "id": 47,
          "name": {
            "zh-Hans": "捷足的阿喀琉斯",
            "zh-Hant": "捷足的阿喀琉斯",
            "en": "Achilles, the Swift-Footed"
          },
          "intro": {
            "zh-Hans": "特洛伊战争中近乎不死的勇士，却因母亲握过的脚踵中箭而亡。",
            "zh-Hant": "特洛伊戰爭中近乎不死的勇士，卻因母親握過的腳踵中箭而亡。",
            "en": "A near-invulnerable warrior at Troy, undone by an arrow to the heel his mother had held."
          },
          "icon": "hero-047.png"
        },
        {
          "id": 48,
          "name": {
            "zh-Hans": "漫漫归途的奥德修斯",
            "zh-Hant": "漫漫歸途的奧德修斯",
            "en": "Odysseus, the Long Way Home"
          },
          "intro": {
            "zh-Hans": "足智多谋的国王，历经十年才从特洛伊返乡，途中智胜独眼巨人。",
            "zh-Hant": "足智多謀的國王，歷經十年才從特洛伊返鄉，途中智勝獨眼巨人。",
            "en": "A clever king who took ten years to sail home from Troy, outwitting a cyclops on the way."
          },
          "icon": "hero-048.png"
        },
        {
          "id": 49,
          "name": {
            "zh-Hans": "斩杀蛇发女妖的珀尔修斯",
            "zh-Hant": "斬殺蛇髮女妖的珀爾修斯",
            "en": "Perseus, Bane of the Gorgon"
          },
          "intro": {
            "zh-Hans": "他借助明镜般的盾牌与飞鞋，不与美杜莎对视便取下她的头颅。",
            "zh-Hant": "他藉助明鏡般的盾牌與飛鞋，不與美杜莎對視便取下她的頭顱。",
            "en": "With a mirrored shield and winged sandals he took Medusa's head without meeting her gaze."
          },
          "icon": "hero-049.png"
        },
        {
          "id": 50,
          "name": {
            "zh-Hans": "迷宫行者忒修斯",
            "zh-Hant": "迷宮行者忒修斯",
            "en": "Theseus, Walker of the Labyrinth"
          },
          "intro": {
            "zh-Hans": "他循着线团走进克里特迷宫，杀死牛头怪，又循线安然脱身。",
            "zh-Hant": "他循著線團走進克里特迷宮，殺死牛頭怪，又循線安然脫身。",
            "en": "He followed a thread into the labyrinth of Crete, slew the Minotaur and found his way out."
          },
          "icon": "hero-050.png"
        },
        {
          "id": 51,
          "name": {
            "zh-Hans": "赛跑女猎手阿塔兰忒",
            "zh-Hant": "賽跑女獵手阿塔蘭忒",
            "en": "Atalanta, the Huntress Who Outran Suitors"
          },
          "intro": {
            "zh-Hans": "她与每位求婚者赛跑，只因路上滚落的金苹果才输了一场。",
            "zh-Hant": "她與每位求婚者賽跑，只因路上滾落的金蘋果才輸了一場。",
            "en": "A huntress who beat every suitor in a race and lost only to three rolling golden apples."
          },
          "icon": "hero-051.png"
        },
        {
          "id": 52,
          "name": {
            "zh-Hans": "盗火者普罗米修斯",
            "zh-Hant": "盜火者普羅米修斯",
            "en": "Prometheus, Thief of Fire"
          },
          "intro": {
            "zh-Hans": "泰坦神为人类从众神手中盗来火种，因此被锁在山崖上。",
            "zh-Hant": "泰坦神為人類從眾神手中盜來火種，因此被鎖在山崖上。",
            "en": "A Titan who stole fire from the gods for humankind and was chained to a mountain for it."
          },
          "icon": "hero-052.png"
        },
        {
          "id": 53,
          "name": {
            "zh-Hans": "冥府门前的歌者俄耳甫斯",
            "zh-Hant": "冥府門前的歌者俄耳甫斯",
            "en": "Orpheus, Singer at the Gates of the Dead"
          },
          "intro": {
            "zh-Hans": "他的歌声打动了冥王，却因过早回头再次失去爱人。",
            "zh-Hant": "他的歌聲打動了冥王，卻因過早回頭再次失去愛人。",
            "en": "His song moved the lord of the dead, but he looked back too soon and lost his love again."
          },
          "icon": "hero-053.png"
        },
        {
          "id": 54,
          "name": {
            "zh-Hans": "阿尔戈号船长伊阿宋",
            "zh-Hant": "阿爾戈號船長伊阿宋",
            "en": "Jason, Captain of the Argo"
          },
          "intro": {
            "zh-Hans": "他召集满船英雄，远航到世界尽头寻找金羊毛。",
            "zh-Hant": "他召集滿船英雄，遠航到世界盡頭尋找金羊毛。",
            "en": "He gathered a ship full of heroes and sailed to the edge of the world for a golden fleece."
          },
          "icon": "hero-054.png"
        },
        {
          "id": 55,
          "name": {
            "zh-Hans": "特洛伊之盾赫克托耳",
            "zh-Hant": "特洛伊之盾赫克托耳",
            "en": "Hector, Shield of Troy"
          },
          "intro": {
            "zh-Hans": "特洛伊的长王子，明知城邦终将陷落，仍为之奋战。",
            "zh-Hant": "特洛伊的長王子，明知城邦終將陷落，仍為之奮戰。",
            "en": "The eldest prince of Troy, who fought for his city knowing that it would fall."
          },
          "icon": "hero-055.png"
        },
        {
          "id": 56,
          "name": {
            "zh-Hans": "织布守候的珀涅罗珀",
            "zh-Hant": "織布守候的珀涅羅珀",
            "en": "Penelope, Weaver of Patience"
          },
          "intro": {
            "zh-Hans": "她白天织布、夜里拆线，让求婚者苦苦等待多年。",
            "zh-Hant": "她白天織布、夜裡拆線，讓求婚者苦苦等待多年。",
            "en": "She kept her suitors waiting for years by unweaving at night what she had woven by day."
          },
          "icon": "hero-056.png"
        },
        {
          "id": 57,
          "name": {
            "zh-Hans": "造翼者代达罗斯",
            "zh-Hant": "造翼者代達羅斯",
            "en": "Daedalus, Maker of Wings"
          },
          "intro": {
            "zh-Hans": "发明家建造了迷宫，又用羽毛和蜡制成翅膀逃离囚禁。",
            "zh-Hant": "發明家建造了迷宮，又用羽毛和蠟製成翅膀逃離囚禁。",
            "en": "An inventor who built the labyrinth, then wings of feathers and wax to escape his prison."
          },
          "icon": "hero-057.png"
        },
        {
          "id": 58,
          "name": {
            "zh-Hans": "无人相信的先知卡珊德拉",
            "zh-Hant": "無人相信的先知卡珊德拉",
            "en": "Cassandra, the Unheeded Prophet"
          },
          "intro": {
            "zh-Hans": "特洛伊公主能预见一切灾祸，却被诅咒无人相信她的话。",
            "zh-Hant": "特洛伊公主能預見一切災禍，卻被詛咒無人相信她的話。",
            "en": "A Trojan princess who foresaw every disaster and was cursed so that no one believed her."
          },
          "icon": "hero-058.png"
        },
        {
          "id": 59,
          "name": {
            "zh-Hans": "温泉关之王列奥尼达",
            "zh-Hant": "溫泉關之王列奧尼達",
            "en": "Leonidas, King at the Hot Gates"
          },
          "intro": {
            "zh-Hans": "斯巴达国王率少数勇士在狭窄关隘阻挡庞大的入侵大军。",
            "zh-Hant": "斯巴達國王率少數勇士在狹窄關隘阻擋龐大的入侵大軍。",
            "en": "A Spartan king who held a narrow pass with a small band against a vast invading army."
          },
          "icon": "hero-059.png"
        },
        {
          "id": 60,
          "name": {
            "zh-Hans": "撬动地球的阿基米德",
            "zh-Hant": "撬動地球的阿基米德",
            "en": "Archimedes, Mover of the World"
          },
          "intro": {
            "zh-Hans": "叙拉古的数学家，曾在浴盆中高呼“我找到了”，只求一个支点。",
            "zh-Hant": "敘拉古的數學家，曾在浴盆中高呼「我找到了」，只求一個支點。",
            "en": "A mathematician of Syracuse who cried out in his bath and asked only for a place to stand."
          },
          "icon": "hero-060.png"
        },
        {
          "id": 61,
          "name": {
            "zh-Hans": "落泪的征服者亚历山大",
            "zh-Hant": "落淚的征服者亞歷山大",
            "en": "Alexander, the Conqueror Who Wept"
          },
          "intro": {
            "zh-Hans": "马其顿国王三十岁前已远征印度，传说他因无地可征而落泪。",
            "zh-Hant": "馬其頓國王三十歲前已遠征印度，傳說他因無地可征而落淚。",
            "en": "A Macedonian king who marched to India before thirty and wept, they say, for new worlds."
          },
          "icon": "hero-061.png"
        },
        {
          "id": 62,
          "name": {
            "zh-Hans": "雷锤之神索尔",
            "zh-Hant": "雷錘之神索爾",
            "en": "Thor, Hammer of Thunder"
          },
          "intro": {
            "zh-Hans": "雷神手握短柄神锤守护人间，神锤掷出总会飞回手中。",
            "zh-Hant": "雷神手握短柄神錘守護人間，神錘擲出總會飛回手中。",
            "en": "A thunder god who guards the human world with a short-handled hammer that always returns."
          },
          "icon": "hero-062.png"
        },
        {
          "id": 63,
          "name": {
            "zh-Hans": "独目漫游者奥丁",
            "zh-Hant": "獨目漫遊者奧丁",
            "en": "Odin, the One-Eyed Wanderer"
          },
          "intro": {
            "zh-Hans": "众神之父以一只眼换取智慧，又在世界树上倒悬九夜习得符文。",
            "zh-Hant": "眾神之父以一隻眼換取智慧，又在世界樹上倒懸九夜習得符文。",
            "en": "The all-father, who gave an eye for wisdom and hung on the world tree to win the runes."
          },
          "icon": "hero-063.png"
        },
        {
          "id": 64,
          "name": {
            "zh-Hans": "鹰羽斗篷的芙蕾雅",
            "zh-Hant": "鷹羽斗篷的芙蕾雅",
            "en": "Freyja, Lady of the Falcon Cloak"
          },
          "intro": {
            "zh-Hans": "司掌爱与战争的女神，乘坐两只大猫拉的战车。",
            "zh-Hant": "司掌愛與戰爭的女神，乘坐兩隻大貓拉的戰車。",
            "en": "A goddess of love and battle who rides in a chariot drawn by two great cats."
          },
          "icon": "hero-064.png"
        },
        {
          "id": 65,
          "name": {
            "zh-Hans": "屠龙者西格鲁德",
            "zh-Hant": "屠龍者西格魯德",
            "en": "Sigurd, Slayer of Fafnir"
          },
          "intro": {
            "zh-Hans": "他尝到巨龙的心血，忽然听懂了鸟儿的语言。",
            "zh-Hant": "他嘗到巨龍的心血，忽然聽懂了鳥兒的語言。",
            "en": "He tasted the dragon's heart-blood and suddenly understood the speech of birds."
          },
          "icon": "hero-065.png"
        },
        {
          "id": 66,
          "name": {
            "zh-Hans": "火环中的女武神布伦希尔德",
            "zh-Hant": "火環中的女武神布倫希爾德",
            "en": "Brynhild, Shieldmaiden in the Ring of Fire"
          },
          "intro": {
            "zh-Hans": "女武神在火墙中沉睡，直到一位无畏的英雄策马穿越烈焰。",
            "zh-Hant": "女武神在火牆中沉睡，直到一位無畏的英雄策馬穿越烈焰。",
            "en": "A valkyrie who slept inside a wall of flame until a fearless hero rode through it."
          },
          "icon": "hero-066.png"
        },
        {
          "id": 67,
          "name": {
            "zh-Hans": "变形诡术师洛基",
            "zh-Hant": "變形詭術師洛基",
            "en": "Loki, the Shape-Shifting Trickster"
          },
          "intro": {
            "zh-Hans": "聪明而不安分的神，总给众神惹麻烦，有时又替他们解围。",
            "zh-Hant": "聰明而不安分的神，總給眾神惹麻煩，有時又替他們解圍。",
            "en": "A restless, clever god who makes endless trouble for the gods and sometimes gets them out."
          },
          "icon": "hero-067.png"
        },
        {
          "id": 68,
          "name": {
            "zh-Hans": "独臂守誓者提尔",
            "zh-Hant": "獨臂守誓者提爾",
            "en": "Tyr, the One-Handed Oath-Keeper"
          },
          "intro": {
            "zh-Hans": "他将手放入巨狼口中作为担保，失去一只手才让巨狼被缚。",
            "zh-Hant": "他將手放入巨狼口中作為擔保，失去一隻手才讓巨狼被縛。",
            "en": "He put his hand in the wolf's jaws as a pledge and lost it so the wolf could be bound."
          },
          "icon": "hero-068.png"
        },
        {
          "id": 69,
          "name": {
            "zh-Hans": "发现文兰的莱夫·埃里克松",
            "zh-Hant": "發現文蘭的萊夫·埃里克松",
            "en": "Leif Erikson, Finder of Vinland"
          },
          "intro": {
            "zh-Hans": "北欧航海家，约在公元一千年抵达北美海岸。",
            "zh-Hant": "北歐航海家，約在公元一千年抵達北美海岸。",
            "en": "A Norse seafarer who reached the shores of North America around the year 1000."
          },
          "icon": "hero-069.png"
        },
        {
          "id": 70,
          "name": {
            "zh-Hans": "格伦德尔的克星贝奥武夫",
            "zh-Hant": "格倫德爾的剋星貝奧武夫",
            "en": "Beowulf, Bane of Grendel"
          },
          "intro": {
            "zh-Hans": "高特勇士在蜜酒大厅扯下怪物的手臂，年老为王时又迎战巨龙。",
            "zh-Hant": "高特勇士在蜜酒大廳扯下怪物的手臂，年老為王時又迎戰巨龍。",
            "en": "A warrior who tore off a monster's arm in a mead hall and in old age fought a dragon."
          },
          "icon": "hero-070.png"
        },
        {
          "id": 71,
          "name": {
            "zh-Hans": "圆桌之王亚瑟",
            "zh-Hant": "圓桌之王亞瑟",
            "en": "Arthur, King of the Round Table"
          },
          "intro": {
            "zh-Hans": "少年从石中拔出宝剑，召集骑士们平起平坐共议国事。",
            "zh-Hant": "少年從石中拔出寶劍，召集騎士們平起平坐共議國事。",
            "en": "A young man who drew a sword from a stone and gathered knights who sat as equals."
          },
          "icon": "hero-071.png"
        },
        {
          "id": 72,
          "name": {
            "zh-Hans": "国王的谋士梅林",
            "zh-Hant": "國王的謀士梅林",
            "en": "Merlin, Counsellor of Kings"
          },
          "intro": {
            "zh-Hans": "凡人与精灵所生的巫师，辅佐历代国王，并在平原上竖起巨石。",
            "zh-Hant": "凡人與精靈所生的巫師，輔佐歷代國王，並在平原上豎起巨石。",
            "en": "A wizard born of a mortal and a spirit, who advised kings and raised stones on a plain."
          },
          "icon": "hero-072.png"
        },
        {
          "id": 73,
          "name": {
            "zh-Hans": "湖上骑士兰斯洛特",
            "zh-Hant": "湖上騎士蘭斯洛特",
            "en": "Lancelot, Knight of the Lake"
          },
          "intro": {
            "zh-Hans": "由湖中仙女抚养长大的最强骑士，在忠诚与爱情之间挣扎。",
            "zh-Hant": "由湖中仙女撫養長大的最強騎士，在忠誠與愛情之間掙扎。",
            "en": "The finest knight of his age, raised by the Lady of the Lake, torn by loyalty and love."
          },
          "icon": "hero-073.png"
        },
        {
          "id": 74,
          "name": {
            "zh-Hans": "绿色礼拜堂的骑士高文",
            "zh-Hant": "綠色禮拜堂的騎士高文",
            "en": "Gawain, Knight of the Green Chapel"
          },
          "intro": {
            "zh-Hans": "他接受绿衣巨人的斩首之约，一年之后如约赴会。",
            "zh-Hant": "他接受綠衣巨人的斬首之約，一年之後如約赴會。",
            "en": "He accepted a green giant's beheading game and kept his word a year later."
          },
          "icon": "hero-074.png"
        },
        {
          "id": 75,
          "name": {
            "zh-Hans": "卡美洛王后桂妮薇儿",
            "zh-Hant": "卡美洛王后桂妮薇兒",
            "en": "Guinevere, Queen of Camelot"
          },
          "intro": {
            "zh-Hans": "亚瑟的王后，她的卡美洛宫廷是不列颠传说中最耀眼的所在。",
            "zh-Hant": "亞瑟的王后，她的卡美洛宮廷是不列顛傳說中最耀眼的所在。",
            "en": "Arthur's queen, whose court at Camelot was the brightest in all the tales of Britain."
          },
          "icon": "hero-075.png"
        },
        {
          "id": 76,
          "name": {
            "zh-Hans": "寻找圣杯的帕西瓦尔",
            "zh-Hant": "尋找聖盃的帕西瓦爾",
            "en": "Percival, Seeker of the Grail"
          },
          "intro": {
            "zh-Hans": "在远离宫廷处长大的少年，成为少数得见圣杯的骑士之一。",
            "zh-Hant": "在遠離宮廷處長大的少年，成為少數得見聖盃的騎士之一。",
            "en": "A boy raised far from court who became one of the few knights to see the Grail."
          },
          "icon": "hero-076.png"
        },
        {
          "id": 77,
          "name": {
            "zh-Hans": "纯洁骑士加拉哈德",
            "zh-Hant": "純潔騎士加拉哈德",
            "en": "Galahad, the Pure Knight"
          },
          "intro": {
            "zh-Hans": "唯一纯洁到能坐上危险之座并寻得圣杯的骑士。",
            "zh-Hant": "唯一純潔到能坐上危險之座並尋得聖盃的騎士。",
            "en": "The only knight pure enough to sit in the Perilous Seat and achieve the Grail."
          },
          "icon": "hero-077.png"
        },
        {
          "id": 78,
          "name": {
            "zh-Hans": "康沃尔海上的骑士特里斯坦",
            "zh-Hant": "康沃爾海上的騎士特里斯坦",
            "en": "Tristan, Knight of the Cornish Sea"
          },
          "intro": {
            "zh-Hans": "竖琴手兼骑士，因在海上误饮药酒而与伊索尔德相恋。",
            "zh-Hant": "豎琴手兼騎士，因在海上誤飲藥酒而與伊索爾德相戀。",
            "en": "A harper and knight whose love for Iseult began with a potion drunk by mistake at sea."
          },
          "icon": "hero-078.png"
        },
        {
          "id": 79,
          "name": {
            "zh-Hans": "屠龙圣徒圣乔治",
            "zh-Hant": "屠龍聖徒聖喬治",
            "en": "Saint George, Dragon-Slayer of Cappadocia"
          },
          "intro": {
            "zh-Hans": "军人圣徒，传说他打败索取人牲的恶龙，解救了一座城镇。",
            "zh-Hant": "軍人聖徒，傳說他打敗索取人牲的惡龍，解救了一座城鎮。",
            "en": "A soldier-saint who, in the legend, freed a town from a dragon that demanded its people."
          },
          "icon": "hero-079.png"
        },
        {
          "id": 80,
          "name": {
            "zh-Hans": "奥尔良少女圣女贞德",
            "zh-Hant": "奧爾良少女聖女貞德",
            "en": "Saint Joan, the Maid of Orléans"
          },
          "intro": {
            "zh-Hans": "听见天启的农家少女，十七岁率法军作战，十九岁被处火刑。",
            "zh-Hant": "聽見天啟的農家少女，十七歲率法軍作戰，十九歲被處火刑。",
            "en": "A peasant girl who heard voices, led armies at seventeen and was burned at nineteen."
          },
          "icon": "hero-080.png"
        },
        {
          "id": 81,
          "name": {
            "zh-Hans": "航海者圣布伦丹",
            "zh-Hant": "航海者聖布倫丹",
            "en": "Saint Brendan, the Navigator"
          },
          "intro": {
            "zh-Hans": "爱尔兰修道院长，传说乘皮船横渡大洋，曾误把鲸背当作小岛。",
            "zh-Hant": "愛爾蘭修道院長，傳說乘皮船橫渡大洋，曾誤把鯨背當作小島。",
            "en": "An Irish abbot said to have crossed the ocean in a leather boat, once landing on a whale."
          },
          "icon": "hero-081.png"
        },
        {
          "id": 82,
          "name": {
            "zh-Hans": "夜间赠礼的圣尼古拉",
            "zh-Hant": "夜間贈禮的聖尼古拉",
            "en": "Saint Nicholas, Giver in the Night"
          },
          "intro": {
            "zh-Hans": "传说这位主教夜里从窗口投下金子，让三姐妹得以出嫁。",
            "zh-Hant": "傳說這位主教夜裡從窗口投下金子，讓三姐妹得以出嫁。",
            "en": "A bishop who, the story goes, dropped gold through a window so three sisters could marry."
          },
          "icon": "hero-082.png"
        },
        {
          "id": 83,
          "name": {
            "zh-Hans": "海地解放者杜桑·卢维杜尔",
            "zh-Hant": "海地解放者杜桑·盧維杜爾",
            "en": "Toussaint L'Ouverture, Liberator of Haiti"
          },
          "intro": {
            "zh-Hans": "生而为奴的他领导海地革命，为获得自由的殖民地制定宪法。",
            "zh-Hant": "生而為奴的他領導海地革命，為獲得自由的殖民地制定憲法。",
            "en": "Born enslaved, he led the Haitian Revolution and wrote a constitution for a free colony."
          },
          "icon": "hero-083.png"
        },
        {
          "id": 84,
          "name": {
            "zh-Hans": "夜航飞行员圣埃克苏佩里",
            "zh-Hant": "夜航飛行員聖埃克蘇佩里",
            "en": "Antoine de Saint-Exupéry, Pilot of the Night Mail"
          },
          "intro": {
            "zh-Hans": "飞越沙漠与群山的邮航飞行员，写下来自小行星的小王子的故事。",
            "zh-Hant": "飛越沙漠與群山的郵航飛行員，寫下來自小行星的小王子的故事。",
            "en": "An airmail pilot who flew over deserts and wrote of a little prince from a tiny planet."
          },
          "icon": "hero-084.png"
        },
        {
          "id": 85,
          "name": {
            "zh-Hans": "第四位火枪手达达尼昂",
            "zh-Hant": "第四位火槍手達達尼昂",
            "en": "D'Artagnan, the Fourth Musketeer"
          },
          "intro": {
            "zh-Hans": "血气方刚的加斯科涅青年骑着黄马来到巴黎，结识三位终生挚友。",
            "zh-Hant": "血氣方剛的加斯科涅青年騎著黃馬來到巴黎，結識三位終生摯友。",
            "en": "A hot-headed Gascon who reached Paris on a yellow horse and found three lifelong friends."
          },
          "icon": "hero-085.png"
        },
        {
          "id": 86,
          "name": {
            "zh-Hans": "获得救赎的苦役犯让·瓦尔让",
            "zh-Hant": "獲得救贖的苦役犯讓·瓦爾讓",
            "en": "Jean·Valjean, the Redeemed Convict"
          },
          "intro": {
            "zh-Hans": "因偷面包入狱，主教的宽恕改变了他，他用一生去报答。",
            "zh-Hant": "因偷麵包入獄，主教的寬恕改變了他，他用一生去報答。",
            "en": "Jailed for stealing bread, he was changed by a bishop's mercy and lived to repay it."
          },
          "icon": "hero-086.png"
        },
        {
          "id": 87,
          "name": {
            "zh-Hans": "大战风车的堂吉诃德",
            "zh-Hant": "大戰風車的堂吉訶德",
            "en": "Don Quixote, Tilter at Windmills"
          },
          "intro": {
            "zh-Hans": "读多了骑士小说的乡绅，骑马出门行侠，把风车当作巨人。",
            "zh-Hant": "讀多了騎士小說的鄉紳，騎馬出門行俠，把風車當作巨人。",
            "en": "A country gentleman who read too many romances and rode out to fight windmills as giants."
          },
          "icon": "hero-087.png"
        },
        {
          "id": 88,
          "name": {
            "zh-Hans": "忠实侍从桑丘·潘沙",
            "zh-Hant": "忠實侍從桑丘·潘沙",
            "en": "Sancho Panza, the Faithful Squire"
          },
          "intro": {
            "zh-Hans": "务实的农夫追随主人的梦想，凭常识治理了一座“海岛”。",
            "zh-Hant": "務實的農夫追隨主人的夢想，憑常識治理了一座「海島」。",
            "en": "A practical farmer who followed his master's dreams and ruled an island with common sense."
          },
          "icon": "hero-088.png"
        },
        {
          "id": 89,
          "name": {
            "zh-Hans": "舍伍德绿林侠罗宾汉",
            "zh-Hant": "舍伍德綠林俠羅賓漢",
            "en": "Robin Hood, Outlaw of Sherwood"
          },
          "intro": {
            "zh-Hans": "绿林神箭手，劫富济贫，行侠于舍伍德森林。",
            "zh-Hant": "綠林神箭手，劫富濟貧，行俠於舍伍德森林。",
            "en": "An archer of the greenwood who robbed rich travellers and shared the spoils with the poor."
          },
          "icon": "hero-089.png"
        },
        {
          "id": 90,
          "name": {
            "zh-Hans": "讲述千夜故事的山鲁佐德",
            "zh-Hant": "講述千夜故事的山魯佐德",
            "en": "Scheherazade, Teller of a Thousand Nights"
          },
          "intro": {
            "zh-Hans": "她每夜为国王讲新故事，总在黎明停在悬念处，直到他忘掉残忍的誓言。",
            "zh-Hant": "她每夜為國王講新故事，總在黎明停在懸念處，直到他忘掉殘忍的誓言。",
            "en": "She told a king a new story each night, stopping at dawn, until he forgot his cruel vow."
          },
          "icon": "hero-090.png"
        },
        {
          "id": 91,
          "name": {
            "zh-Hans": "七次远航的水手辛巴达",
            "zh-Hant": "七次遠航的水手辛巴達",
            "en": "Sinbad, Sailor of Seven Voyages"
          },
          "intro": {
            "zh-Hans": "巴格达商人，历经海难、巨鸟和钻石山谷而生还。",
            "zh-Hant": "巴格達商人，歷經海難、巨鳥和鑽石山谷而生還。",
            "en": "A merchant of Baghdad who survived shipwrecks, giant birds and a valley of diamonds."
          },
          "icon": "hero-091.png"
        },
        {
          "id": 92,
          "name": {
            "zh-Hans": "发现大盗宝窟的阿里巴巴",
            "zh-Hant": "發現大盜寶窟的阿里巴巴",
            "en": "Ali Baba, Finder of the Forty Thieves' Cave"
          },
          "intro": {
            "zh-Hans": "贫穷的樵夫偷听到打开强盗洞穴的咒语。",
            "zh-Hant": "貧窮的樵夫偷聽到打開強盜洞穴的咒語。",
            "en": "A poor woodcutter who overheard the words that open a robbers' cave."
          },
          "icon": "hero-092.png"
        },
        {
          "id": 93,
          "name": {
            "zh-Hans": "小人国里的巨人格列佛",
            "zh-Hant": "小人國裡的巨人格列佛",
            "en": "Lemuel Gulliver, Giant Among the Small"
          },
          "intro": {
            "zh-Hans": "船医漂流上岸，发现当地人还没有他的拇指高。",
            "zh-Hant": "船醫漂流上岸，發現當地人還沒有他的拇指高。",
            "en": "A ship's surgeon washed ashore among people no taller than his thumb."
          },
          "icon": "hero-093.png"
        },
        {
          "id": 94,
          "name": {
            "zh-Hans": "荒岛求生的鲁滨孙",
            "zh-Hant": "荒島求生的魯濱孫",
            "en": "Robinson Crusoe, Castaway of Twenty-Eight Years"
          },
          "intro": {
            "zh-Hans": "遇难水手流落荒岛二十八年，凭打捞的物资、耐心和日记重建生活。",
            "zh-Hant": "遇難水手流落荒島二十八年，憑打撈的物資、耐心和日記重建生活。",
            "en": "A shipwrecked sailor who built a life on an island from salvage, patience and a diary."
          },
          "icon": "hero-094.png"
        },
        {
          "id": 95,
          "name": {
            "zh-Hans": "犹豫的丹麦王子哈姆雷特",
            "zh-Hant": "猶豫的丹麥王子哈姆雷特",
            "en": "Hamlet, the Hesitant Prince of Denmark"
          },
          "intro": {
            "zh-Hans": "王子从父亲的鬼魂处得知谋杀真相，却在复仇前久久犹豫。",
            "zh-Hant": "王子從父親的鬼魂處得知謀殺真相，卻在復仇前久久猶豫。",
            "en": "A prince who learned of a murder from his father's ghost and wavered long over revenge."
          },
          "icon": "hero-095.png"
        },
        {
          "id": 96,
          "name": {
            "zh-Hans": "鹦鹉螺号船长尼摩",
            "zh-Hant": "鸚鵡螺號船長尼摩",
            "en": "Captain Nemo, Master of the Nautilus"
          },
          "intro": {
            "zh-Hans": "神秘的工程师驾驶自己设计的潜艇遨游深海。",
            "zh-Hant": "神秘的工程師駕駛自己設計的潛艇遨遊深海。",
            "en": "A mysterious engineer who roams the ocean depths in a submarine of his own design."
          },
          "icon": "hero-096.png"
        },
        {
          "id": 97,
          "name": {
            "zh-Hans": "八十天环游地球的福格",
            "zh-Hant": "八十天環遊地球的福格",
            "en": "Phileas Fogg, the Eighty-Day Traveller"
          },
          "intro": {
            "zh-Hans": "守时的绅士押上全部财产，打赌能在八十天内环游地球。",
            "zh-Hant": "守時的紳士押上全部財產，打賭能在八十天內環遊地球。",
            "en": "A punctual gentleman who bet his fortune that he could circle the globe in eighty days."
          },
          "icon": "hero-097.png"
        },
        {
          "id": 98,
          "name": {
            "zh-Hans": "明察秋毫的夏洛克·福尔摩斯",
            "zh-Hant": "明察秋毫的夏洛克·福爾摩斯",
            "en": "Sherlock Holmes, Reader of Small Details"
          },
          "intro": {
            "zh-Hans": "伦敦的侦探，能从磨损的鞋子或晒黑的手腕看出陌生人的经历。",
            "zh-Hant": "倫敦的偵探，能從磨損的鞋子或曬黑的手腕看出陌生人的經歷。",
            "en": "A London detective who reads a stranger's life from a scuffed shoe or a sunburnt wrist."
          },
          "icon": "hero-098.png"
        },
        {
          "id": 99,
          "name": {
            "zh-Hans": "基督山伯爵爱德蒙·唐泰斯",
            "zh-Hant": "基督山伯爵愛德蒙·唐泰斯",
            "en": "Edmond Dantès, the Count of Monte Cristo"
          },
          "intro": {
            "zh-Hans": "蒙冤入狱十四年，越狱后寻得宝藏，改头换面归来。",
            "zh-Hant": "蒙冤入獄十四年，越獄後尋得寶藏，改頭換面歸來。",
            "en": "Falsely jailed for fourteen years, he escaped, found a treasure and came back changed."
          },
          "icon": "hero-099.png"
        },
        {
          "id": 100,
          "name": {
            "zh-Hans": "巴黎圣母院的敲钟人卡西莫多",
            "zh-Hant": "巴黎聖母院的敲鐘人卡西莫多",
            "en": "Quasimodo, Bell-Ringer of Notre-Dame"
          },
          "intro": {
            "zh-Hans": "因相貌遭人排斥的敲钟人，却有全巴黎最忠诚的心。",
            "zh-Hant": "因相貌遭人排斥的敲鐘人，卻有全巴黎最忠誠的心。",
            "en": "A bell-ringer shunned for his looks, whose heart proved the most faithful in Paris."
          },
          "icon": "hero-100.png"
        },
        {
          "id": 101,
          "name": {
            "zh-Hans": "寻求永生的乌鲁克王吉尔伽美什",
            "zh-Hant": "尋求永生的烏魯克王吉爾伽美什",
            "en": "Gilgamesh, the King Who Sought Forever"
          },
          "intro": {
            "zh-Hans": "乌鲁克之王渡过死亡之水寻求永生之道，归来时更为睿智。",
            "zh-Hant": "烏魯克之王渡過死亡之水尋求永生之道，歸來時更為睿智。",
            "en": "A king of Uruk who crossed the waters of death to seek eternal life and came home wiser."
          },
          "icon": "hero-101.png"
        },
        {
          "id": 102,
          "name": {
            "zh-Hans": "阿约提亚王子罗摩",
            "zh-Hant": "阿約提亞王子羅摩",
            "en": "Rama, Prince of Ayodhya"
          },
          "intro": {
            "zh-Hans": "被放逐的王子架桥通往海岛要塞，救回妻子悉多。",
            "zh-Hant": "被放逐的王子架橋通往海島要塞，救回妻子悉多。",
            "en": "An exiled prince who built a bridge to an island fortress to rescue his wife Sita."
          },
          "icon": "hero-102.png"
        },
        {
          "id": 103,
          "name": {
            "zh-Hans": "飞跃大海的神猴哈奴曼",
            "zh-Hant": "飛躍大海的神猴哈奴曼",
            "en": "Hanuman, the Leaping Monkey"
          },
          "intro": {
            "zh-Hans": "神猴一跃过海，为取草药把整座山搬来。",
            "zh-Hant": "神猴一躍過海，為取草藥把整座山搬來。",
            "en": "A monkey hero who leapt the sea and carried a whole mountain to fetch a healing herb."
          },
          "icon": "hero-103.png"
        },
        {
          "id": 104,
          "name": {
            "zh-Hans": "俱卢之野的神射手阿周那",
            "zh-Hant": "俱盧之野的神射手阿周那",
            "en": "Arjuna, Archer of Kurukshetra"
          },
          "intro": {
            "zh-Hans": "无双的射手在大战之前，向他的御者请教何为真正的职责。",
            "zh-Hant": "無雙的射手在大戰之前，向他的御者請教何為真正的職責。",
            "en": "A peerless archer who, before the great battle, asked his charioteer what duty means."
          },
          "icon": "hero-104.png"
        },
        {
          "id": 105,
          "name": {
            "zh-Hans": "桃中诞生的桃太郎",
            "zh-Hant": "桃中誕生的桃太郎",
            "en": "Momotaro, the Peach Boy"
          },
          "intro": {
            "zh-Hans": "从大桃子中诞生的男孩，带着狗、猴子和野鸡远征鬼岛。",
            "zh-Hant": "從大桃子中誕生的男孩，帶著狗、猴子和野雞遠征鬼島。",
            "en": "A boy born from a giant peach who sailed to Demon Island with a dog, monkey and pheasant."
          },
          "icon": "hero-105.png"
        },
        {
          "id": 106,
          "name": {
            "zh-Hans": "失落百年的渔夫浦岛太郎",
            "zh-Hant": "失落百年的漁夫浦島太郎",
            "en": "Urashima Taro, the Fisherman Who Lost Centuries"
          },
          "intro": {
            "zh-Hans": "他在海底龙宫住了三天，回到家乡已过了三百年。",
            "zh-Hant": "他在海底龍宮住了三天，回到家鄉已過了三百年。",
            "en": "He spent three days in the Dragon Palace under the sea and came home centuries later."
          },
          "icon": "hero-106.png"
        },
        {
          "id": 107,
          "name": {
            "zh-Hans": "二刀流剑豪宫本武藏",
            "zh-Hant": "二刀流劍豪宮本武藏",
            "en": "Miyamoto Musashi, the Two-Sword Duellist"
          },
          "intro": {
            "zh-Hans": "浪迹四方的剑客，一生决斗六十多次，晚年写下兵法之书。",
            "zh-Hant": "浪跡四方的劍客，一生決鬥六十多次，晚年寫下兵法之書。",
            "en": "A wandering swordsman who fought over sixty duels and later wrote a book on strategy."
          },
          "icon": "hero-107.png"
        },
        {
          "id": 108,
          "name": {
            "zh-Hans": "阿尔斯特的孤胆守护者库丘林",
            "zh-Hant": "阿爾斯特的孤膽守護者庫丘林",
            "en": "Cú Chulainn, Lone Defender of Ulster"
          },
          "intro": {
            "zh-Hans": "少年勇士独自坚守浅滩，整个冬天抵挡入侵大军。",
            "zh-Hant": "少年勇士獨自堅守淺灘，整個冬天抵擋入侵大軍。",
            "en": "A young champion who held a river ford alone against an invading army for a whole winter."
          },
          "icon": "hero-108.png"
        },
        {
          "id": 109,
          "name": {
            "zh-Hans": "尝到智慧鲑鱼的芬恩",
            "zh-Hant": "嘗到智慧鮭魚的芬恩",
            "en": "Fionn mac Cumhaill, Taster of the Salmon of Wisdom"
          },
          "intro": {
            "zh-Hans": "他在烤智慧鲑鱼时烫到拇指，从此吮指便能获得所需的智慧。",
            "zh-Hant": "他在烤智慧鮭魚時燙到拇指，從此吮指便能獲得所需的智慧。",
            "en": "He burned his thumb on the salmon of wisdom and ever after found answers by sucking it."
          },
          "icon": "hero-109.png"
        },
        {
          "id": 110,
          "name": {
            "zh-Hans": "康诺特海盗女王格蕾丝·奥马利",
            "zh-Hant": "康諾特海盜女王格蕾絲·奧馬利",
            "en": "Grace O'Malley, Pirate Queen of Connacht"
          },
          "intro": {
            "zh-Hans": "十六世纪的爱尔兰女首领，称雄西部海域，曾与伊丽莎白一世当面会谈。",
            "zh-Hant": "十六世紀的愛爾蘭女首領，稱雄西部海域，曾與伊麗莎白一世當面會談。",
            "en": "An Irish chieftain who ruled the western seas and met Elizabeth I face to face."
          },
          "icon": "hero-110.png"
        },
        {
          "id": 111,
          "name": {
            "zh-Hans": "乌里的弩手威廉·退尔",
            "zh-Hant": "烏里的弩手威廉·退爾",
            "en": "William Tell, Crossbowman of Uri"
          },
          "intro": {
            "zh-Hans": "被迫射落儿子头顶的苹果，他一箭命中，随即起身反抗暴君。",
            "zh-Hant": "被迫射落兒子頭頂的蘋果，他一箭命中，隨即起身反抗暴君。",
            "en": "Made to shoot an apple off his son's head, he split it, then turned on the tyrant."
          },
          "icon": "hero-111.png"
        },
        {
          "id": 112,
          "name": {
            "zh-Hans": "巴伦西亚的勇士熙德",
            "zh-Hant": "巴倫西亞的勇士熙德",
            "en": "El Cid, Champion of Valencia"
          },
          "intro": {
            "zh-Hans": "卡斯蒂利亚骑士，传说他死后仍被绑在马鞍上赢得最后一战。",
            "zh-Hant": "卡斯蒂利亞騎士，傳說他死後仍被綁在馬鞍上贏得最後一戰。",
            "en": "A Castilian knight who, the legend goes, won one last battle tied dead to his saddle."
          },
          "icon": "hero-112.png"
        },
        {
          "id": 113,
          "name": {
            "zh-Hans": "龙塞斯瓦耶斯的号角罗兰",
            "zh-Hant": "龍塞斯瓦耶斯的號角羅蘭",
            "en": "Roland, the Horn at Roncevaux"
          },
          "intro": {
            "zh-Hans": "查理曼麾下的圣骑士，在山口伏击中太迟才吹响号角。",
            "zh-Hant": "查理曼麾下的聖騎士，在山口伏擊中太遲才吹響號角。",
            "en": "A paladin of Charlemagne who sounded his horn too late in an ambush in a mountain pass."
          },
          "icon": "hero-113.png"
        },
        {
          "id": 114,
          "name": {
            "zh-Hans": "十字军国王狮心王理查",
            "zh-Hant": "十字軍國王獅心王理查",
            "en": "Richard the Lionheart, Crusader King"
          },
          "intro": {
            "zh-Hans": "英格兰国王在位多数时间都在远征，以勇武而非治国闻名。",
            "zh-Hant": "英格蘭國王在位多數時間都在遠征，以勇武而非治國聞名。",
            "en": "An English king who spent most of his reign on crusade, famed for courage more than rule."
          },
          "icon": "hero-114.png"
        },
        {
          "id": 115,
          "name": {
            "zh-Hans": "仁义的苏丹萨拉丁",
            "zh-Hant": "仁義的蘇丹薩拉丁",
            "en": "Saladin, the Chivalrous Sultan"
          },
          "intro": {
            "zh-Hans": "苏丹的仁慈连敌人都敬佩，他曾给患病的敌国国王送去水果和冰雪。",
            "zh-Hant": "蘇丹的仁慈連敵人都敬佩，他曾給患病的敵國國王送去水果和冰雪。",
            "en": "A sultan admired by his enemies for mercy, who sent fruit and snow to a sick rival king."
          },
          "icon": "hero-115.png"
        },
        {
          "id": 116,
          "name": {
            "zh-Hans": "爱西尼女王布狄卡",
            "zh-Hant": "愛西尼女王布狄卡",
            "en": "Boudica, Queen of the Iceni"
          },
          "intro": {
            "zh-Hans": "不列颠女王起兵反抗罗马统治，在最后一战前焚毁三座城市。",
            "zh-Hant": "不列顛女王起兵反抗羅馬統治，在最後一戰前焚燬三座城市。",
            "en": "A British queen who rose against Rome and burned three cities before her final battle."
          },
          "icon": "hero-116.png"
        },
        {
          "id": 117,
          "name": {
            "zh-Hans": "挣脱锁链的斯巴达克斯",
            "zh-Hant": "掙脫鎖鏈的斯巴達克斯",
            "en": "Spartacus, Breaker of Chains"
          },
          "intro": {
            "zh-Hans": "角斗士与约七十名同伴出逃，组建的大军震撼了罗马。",
            "zh-Hant": "角鬥士與約七十名同伴出逃，組建的大軍震撼了羅馬。",
            "en": "A gladiator who escaped with some seventy comrades and raised an army that shook Rome."
          },
          "icon": "hero-117.png"
        },
        {
          "id": 118,
          "name": {
            "zh-Hans": "翻越阿尔卑斯山的汉尼拔",
            "zh-Hant": "翻越阿爾卑斯山的漢尼拔",
            "en": "Hannibal, Who Crossed the Alps with Elephants"
          },
          "intro": {
            "zh-Hans": "迦太基名将率领战象翻越阿尔卑斯山，从北方进攻罗马。",
            "zh-Hant": "迦太基名將率領戰象翻越阿爾卑斯山，從北方進攻羅馬。",
            "en": "A Carthaginian general who led war elephants over the Alps to strike Rome from the north."
          },
          "icon": "hero-118.png"
        },
        {
          "id": 119,
          "name": {
            "zh-Hans": "最后的法老克娄巴特拉",
            "zh-Hant": "最後的法老克婁巴特拉",
            "en": "Cleopatra, the Last Pharaoh"
          },
          "intro": {
            "zh-Hans": "托勒密埃及的末代统治者，通晓多种语言，与罗马斗智周旋。",
            "zh-Hant": "托勒密埃及的末代統治者，通曉多種語言，與羅馬鬥智周旋。",
            "en": "The last ruler of Ptolemaic Egypt, who spoke many languages and matched wits with Rome."
          },
          "icon": "hero-119.png"
        },
        {
          "id": 120,
          "name": {
            "zh-Hans": "黄金之王曼萨·穆萨",
            "zh-Hant": "黃金之王曼薩·穆薩",
            "en": "Mansa Musa, King of Gold"
          },
          "intro": {
            "zh-Hans": "马里帝国君主前往麦加朝圣，沿途散发的黄金多到改变了物价。",
            "zh-Hant": "馬里帝國君主前往麥加朝聖，沿途散發的黃金多到改變了物價。",
            "en": "A ruler of Mali whose pilgrimage carried so much gold that prices changed along the way."
          },
          "icon": "hero-120.png"
        },
        {
          "id": 121,
          "name": {
            "zh-Hans": "站起来的少年松迪亚塔",
            "zh-Hant": "站起來的少年松迪亞塔",
            "en": "Sundiata, the Boy Who Stood"
          },
          "intro": {
            "zh-Hans": "幼年不能行走，他倚铁杖站起，长大后建立了马里帝国。",
            "zh-Hant": "幼年不能行走，他倚鐵杖站起，長大後建立了馬里帝國。",
            "en": "Unable to walk as a child, he rose on an iron staff and grew up to found the Mali empire."
          },
          "icon": "hero-121.png"
        },
        {
          "id": 122,
          "name": {
            "zh-Hans": "故事之蛛阿南西",
            "zh-Hant": "故事之蛛阿南西",
            "en": "Anansi, the Spider of Stories"
          },
          "intro": {
            "zh-Hans": "机智的蜘蛛凭计谋从天神手中赢得世间所有故事。",
            "zh-Hant": "機智的蜘蛛憑計謀從天神手中贏得世間所有故事。",
            "en": "A clever spider who won all the world's stories from the sky god by cunning alone."
          },
          "icon": "hero-122.png"
        },
        {
          "id": 123,
          "name": {
            "zh-Hans": "钓起岛屿的毛伊",
            "zh-Hant": "釣起島嶼的毛伊",
            "en": "Maui, Fisher of Islands"
          },
          "intro": {
            "zh-Hans": "太平洋的半神，用绳索减慢太阳，用鱼钩从海中钓起岛屿。",
            "zh-Hant": "太平洋的半神，用繩索減慢太陽，用魚鉤從海中釣起島嶼。",
            "en": "A demigod of the Pacific who slowed the sun with ropes and hooked islands up from the sea."
          },
          "icon": "hero-123.png"
        },
        {
          "id": 124,
          "name": {
            "zh-Hans": "缔结大和平的海华沙",
            "zh-Hant": "締結大和平的海華沙",
            "en": "Hiawatha, Weaver of the Great Peace"
          },
          "intro": {
            "zh-Hans": "他协助五个交战的部族在同一部和平大法下联合起来。",
            "zh-Hant": "他協助五個交戰的部族在同一部和平大法下聯合起來。",
            "en": "He helped unite five warring nations under one shared law of peace."
          },
          "icon": "hero-124.png"
        },
        {
          "id": 125,
          "name": {
            "zh-Hans": "带着小娃娃的瓦西丽莎",
            "zh-Hant": "帶著小娃娃的瓦西麗莎",
            "en": "Vasilisa, the Girl with the Little Doll"
          },
          "intro": {
            "zh-Hans": "被派去巫婆芭芭雅嘎家取火的少女，带着发光的头骨平安回家。",
            "zh-Hant": "被派去巫婆芭芭雅嘎家取火的少女，帶著發光的頭骨平安回家。",
            "en": "Sent to the witch Baba Yaga for fire, she came home safe with a glowing skull."
          },
          "icon": "hero-125.png"
        },
        {
          "id": 126,
          "name": {
            "zh-Hans": "三十岁起身的勇士伊利亚·穆罗梅茨",
            "zh-Hant": "三十歲起身的勇士伊利亞·穆羅梅茨",
            "en": "Ilya Muromets, the Bogatyr Who Rose at Thirty"
          },
          "intro": {
            "zh-Hans": "他三十岁前不能行走，一朝起身力敌十人，守护通往基辅的道路。",
            "zh-Hant": "他三十歲前不能行走，一朝起身力敵十人，守護通往基輔的道路。",
            "en": "He could not walk until thirty, then rose with the strength of ten to guard Kyiv's roads."
          },
          "icon": "hero-126.png"
        },
        {
          "id": 127,
          "name": {
            "zh-Hans": "两获诺奖的玛丽·居里",
            "zh-Hant": "兩獲諾獎的瑪麗·居里",
            "en": "Marie Curie, Twice-Laurelled Scientist"
          },
          "intro": {
            "zh-Hans": "物理学家兼化学家，发现两种元素，在两个学科荣获诺贝尔奖。",
            "zh-Hant": "物理學家兼化學家，發現兩種元素，在兩個學科榮獲諾貝爾獎。",
            "en": "A physicist and chemist who discovered two elements and won Nobel Prizes in two sciences."
          },
          "icon": "hero-127.png"
        },
        {
          "id": 128,
          "name": {
            "zh-Hans": "苹果树下的艾萨克·牛顿",
            "zh-Hant": "蘋果樹下的艾薩克·牛頓",
            "en": "Isaac Newton, Reader of Falling Apples"
          },
          "intro": {
            "zh-Hans": "他阐明运动定律，证明让苹果落地与行星运转的是同一种引力。",
            "zh-Hant": "他闡明運動定律，證明讓蘋果落地與行星運轉的是同一種引力。",
            "en": "He set out the laws of motion and showed that one gravity moves both apples and planets."
          },
          "icon": "hero-128.png"
        },
        {
          "id": 129,
          "name": {
            "zh-Hans": "观测木星卫星的伽利略",
            "zh-Hant": "觀測木星衛星的伽利略",
            "en": "Galileo Galilei, Watcher of Jupiter's Moons"
          },
          "intro": {
            "zh-Hans": "他把望远镜对准天空，看见环绕木星的卫星，并坚持所见。",
            "zh-Hant": "他把望遠鏡對準天空，看見環繞木星的衛星，並堅持所見。",
            "en": "He turned a telescope on the sky, saw moons circling Jupiter and would not unsee them."
          },
          "icon": "hero-129.png"
        },
        {
          "id": 130,
          "name": {
            "zh-Hans": "设计飞行器的画家列奥纳多·达·芬奇",
            "zh-Hant": "設計飛行器的畫家列奧納多·達·芬奇",
            "en": "Leonardo da Vinci, Painter of Flying Machines"
          },
          "intro": {
            "zh-Hans": "画家兼工程师，笔记本上写满镜像文字的飞行器与机械设计。",
            "zh-Hant": "畫家兼工程師，筆記本上寫滿鏡像文字的飛行器與機械設計。",
            "en": "A painter and engineer whose notebooks hold mirror-written designs for wings and machines."
          },
          "icon": "hero-130.png"
        },
        {
          "id": 131,
          "name": {
            "zh-Hans": "环球航行的费迪南德·麦哲伦",
            "zh-Hant": "環球航行的費迪南德·麥哲倫",
            "en": "Ferdinand Magellan, Sailor Around the World"
          },
          "intro": {
            "zh-Hans": "他率领首次环球航行，却未能活着回到故乡。",
            "zh-Hant": "他率領首次環球航行，卻未能活著回到故鄉。",
            "en": "He led the first voyage around the globe, though he died before it came home."
          },
          "icon": "hero-131.png"
        },
        {
          "id": 132,
          "name": {
            "zh-Hans": "旅行三十年的伊本·白图泰",
            "zh-Hant": "旅行三十年的伊本·白圖泰",
            "en": "Ibn Battuta, Traveller of Thirty Years"
          },
          "intro": {
            "zh-Hans": "摩洛哥学者，足迹遍及非洲、亚洲与欧洲，行程约十二万公里。",
            "zh-Hant": "摩洛哥學者，足跡遍及非洲、亞洲與歐洲，行程約十二萬公里。",
            "en": "A Moroccan scholar who journeyed about 120,000 kilometres across Africa, Asia and Europe."
          },
          "icon": "hero-132.png"
        },
        {
          "id": 133,
          "name": {
            "zh-Hans": "威尼斯来的马可·波罗",
            "zh-Hant": "威尼斯來的馬可·波羅",
            "en": "Marco Polo, Messenger from Venice"
          },
          "intro": {
            "zh-Hans": "威尼斯商人，他在元朝宫廷多年的见闻录震惊了欧洲。",
            "zh-Hant": "威尼斯商人，他在元朝宮廷多年的見聞錄震驚了歐洲。",
            "en": "A Venetian merchant whose account of years at the Mongol court amazed Europe."
          },
          "icon": "hero-133.png"
        },
        {
          "id": 134,
          "name": {
            "zh-Hans": "第一位程序员艾达·洛夫莱斯",
            "zh-Hant": "第一位程序員艾達·洛夫萊斯",
            "en": "Ada Lovelace, First of the Programmers"
          },
          "intro": {
            "zh-Hans": "数学家为一台从未完工的机器写下最早发表的算法。",
            "zh-Hant": "數學家為一臺從未完工的機器寫下最早發表的算法。",
            "en": "A mathematician who published the first algorithm for a machine that was never finished."
          },
          "icon": "hero-134.png"
        },
        {
          "id": 135,
          "name": {
            "zh-Hans": "驾驭闪电的尼古拉·特斯拉",
            "zh-Hant": "駕馭閃電的尼古拉·特斯拉",
            "en": "Nikola Tesla, Master of Lightning"
          },
          "intro": {
            "zh-Hans": "发明家梦想隔空输电，并大力推广交流电。",
            "zh-Hant": "發明家夢想隔空輸電，並大力推廣交流電。",
            "en": "An inventor who dreamed of wireless power and championed alternating current."
          },
          "icon": "hero-135.png"
        },
        {
          "id": 136,
          "name": {
            "zh-Hans": "亚历山大港的天文学家希帕提娅",
            "zh-Hant": "亞歷山大港的天文學家希帕提婭",
            "en": "Hypatia, Astronomer of Alexandria"
          },
          "intro": {
            "zh-Hans": "在亚历山大港授课的哲学家和数学家，校订了多部天文著作。",
            "zh-Hant": "在亞歷山大港授課的哲學家和數學家，校訂了多部天文著作。",
            "en": "A philosopher and mathematician who taught in Alexandria and edited works on the heavens."
          },
          "icon": "hero-136.png"
        },
        {
          "id": 137,
          "name": {
            "zh-Hans": "首抵南极的罗阿尔·阿蒙森",
            "zh-Hant": "首抵南極的羅阿爾·阿蒙森",
            "en": "Roald Amundsen, First to the South Pole"
          },
          "intro": {
            "zh-Hans": "挪威探险家，于1911年12月乘狗拉雪橇抵达南极点。",
            "zh-Hant": "挪威探險家，於1911年12月乘狗拉雪橇抵達南極點。",
            "en": "A Norwegian explorer who reached the South Pole by dog sled in December 1911."
          },
          "icon": "hero-137.png"
        },
        {
          "id": 138,
          "name": {
            "zh-Hans": "坚忍号船长沙克尔顿",
            "zh-Hant": "堅忍號船長沙克爾頓",
            "en": "Ernest Shackleton, Captain of the Endurance"
          },
          "intro": {
            "zh-Hans": "船被浮冰压碎，他仍把全体船员都活着带回了家。",
            "zh-Hant": "船被浮冰壓碎，他仍把全體船員都活著帶回了家。",
            "en": "When the ice crushed his ship, he brought every one of his men home alive."
          },
          "icon": "hero-138.png"
        },
        {
          "id": 139,
          "name": {
            "zh-Hans": "珠峰雪狮丹增·诺尔盖",
            "zh-Hant": "珠峰雪獅丹增·諾爾蓋",
            "en": "Tenzing Norgay, Snow Lion of Everest"
          },
          "intro": {
            "zh-Hans": "夏尔巴登山家，1953年与希拉里首次登上珠穆朗玛峰顶。",
            "zh-Hant": "夏爾巴登山家，1953年與希拉里首次登上珠穆朗瑪峰頂。",
            "en": "A Sherpa climber who, with Edmund Hillary, first stood on the summit of Everest in 1953."
          },
          "icon": "hero-139.png"
        },
        {
          "id": 140,
          "name": {
            "zh-Hans": "独飞大西洋的阿梅莉亚·埃尔哈特",
            "zh-Hant": "獨飛大西洋的阿梅莉亞·埃爾哈特",
            "en": "Amelia Earhart, Alone Across the Atlantic"
          },
          "intro": {
            "zh-Hans": "飞行家独自飞越大西洋，又在环球飞行途中消失于太平洋上空。",
            "zh-Hant": "飛行家獨自飛越大西洋，又在環球飛行途中消失於太平洋上空。",
            "en": "An aviator who flew the Atlantic alone and vanished over the Pacific circling the world."
          },
          "icon": "hero-140.png"
        },
        {
          "id": 141,
          "name": {
            "zh-Hans": "首位飞天者尤里·加加林",
            "zh-Hant": "首位飛天者尤里·加加林",
            "en": "Yuri Gagarin, First Voice from Orbit"
          },
          "intro": {
            "zh-Hans": "第一位进入太空的人，用108分钟绕地球一圈，微笑着落地。",
            "zh-Hant": "第一位進入太空的人，用108分鐘繞地球一圈，微笑著落地。",
            "en": "The first human in space, who circled the Earth once in 108 minutes and landed smiling."
          },
          "icon": "hero-141.png"
        },
        {
          "id": 142,
          "name": {
            "zh-Hans": "小猎犬号上的达尔文",
            "zh-Hant": "小獵犬號上的達爾文",
            "en": "Charles Darwin, Voyager of the Beagle"
          },
          "intro": {
            "zh-Hans": "博物学家从雀鸟与化石中得出物种随时间演变的解释。",
            "zh-Hant": "博物學家從雀鳥與化石中得出物種隨時間演變的解釋。",
            "en": "A naturalist whose finches and fossils led him to explain how species change over time."
          },
          "icon": "hero-142.png"
        },
        {
          "id": 143,
          "name": {
            "zh-Hans": "把太阳放回中心的哥白尼",
            "zh-Hant": "把太陽放回中心的哥白尼",
            "en": "Nicolaus Copernicus, Who Moved the Sun to the Centre"
          },
          "intro": {
            "zh-Hans": "天文学家主张地球绕太阳运行，而不是太阳绕地球。",
            "zh-Hant": "天文學家主張地球繞太陽運行，而不是太陽繞地球。",
            "en": "An astronomer who argued that the Earth circles the Sun, not the other way round."
          },
          "icon": "hero-143.png"
        },
        {
          "id": 144,
          "name": {
            "zh-Hans": "医者之王伊本·西纳",
            "zh-Hant": "醫者之王伊本·西納",
            "en": "Ibn Sina, Prince of Physicians"
          },
          "intro": {
            "zh-Hans": "波斯医学家，他的医学巨著在大学中被讲授了六百年。",
            "zh-Hant": "波斯醫學家，他的醫學鉅著在大學中被講授了六百年。",
            "en": "A Persian physician whose book of medicine was taught in universities for six centuries."
          },
          "icon": "hero-144.png"
        },
        {
          "id": 145,
          "name": {
            "zh-Hans": "代数之父花拉子米",
            "zh-Hant": "代數之父花拉子米",
            "en": "Al-Khwarizmi, Father of Algebra"
          },
          "intro": {
            "zh-Hans": "巴格达学者，他的名字演变为“算法”一词，他的著作为代数命名。",
            "zh-Hant": "巴格達學者，他的名字演變為「算法」一詞，他的著作為代數命名。",
            "en": "A scholar of Baghdad whose name gave us the word algorithm and whose book named algebra."
          },
          "icon": "hero-145.png"
        },
        {
          "id": 146,
          "name": {
            "zh-Hans": "梦溪博学家沈括",
            "zh-Hant": "夢溪博學家沈括",
            "en": "Shen Kuo, Polymath of Dream Brook"
          },
          "intro": {
            "zh-Hans": "宋代官员，他的笔记记载了磁针与活字印刷。",
            "zh-Hant": "宋代官員，他的筆記記載了磁針與活字印刷。",
            "en": "A Song official whose notebooks describe the magnetic compass and movable type."
          },
          "icon": "hero-146.png"
        },
        {
          "id": 147,
          "name": {
            "zh-Hans": "推算圆周率的祖冲之",
            "zh-Hant": "推算圓周率的祖沖之",
            "en": "Zu Chongzhi, Measurer of Pi"
          },
          "intro": {
            "zh-Hans": "数学家在一千五百年前就把圆周率推算到小数点后第七位。",
            "zh-Hant": "數學家在一千五百年前就把圓周率推算到小數點後第七位。",
            "en": "A mathematician who calculated pi to seven decimal places fifteen centuries ago."
          },
          "icon": "hero-147.png"
        },
        {
          "id": 148,
          "name": {
            "zh-Hans": "五禽戏神医华佗",
            "zh-Hant": "五禽戲神醫華佗",
            "en": "Hua Tuo, Healer of the Five Animals"
          },
          "intro": {
            "zh-Hans": "传奇神医曾用麻沸散施术，并仿照五种动物创编五禽戏。",
            "zh-Hant": "傳奇神醫曾用麻沸散施術，並仿照五種動物創編五禽戲。",
            "en": "A legendary surgeon who used a herbal anaesthetic and taught exercises from five animals."
          },
          "icon": "hero-148.png"
        },
        {
          "id": 149,
          "name": {
            "zh-Hans": "提灯巡夜的南丁格尔",
            "zh-Hant": "提燈巡夜的南丁格爾",
            "en": "Florence Nightingale, Nurse of the Night Rounds"
          },
          "intro": {
            "zh-Hans": "护士夜里提灯巡视病房，并用统计数据让医院更安全。",
            "zh-Hant": "護士夜裡提燈巡視病房，並用統計數據讓醫院更安全。",
            "en": "A nurse who walked the wards at night and used statistics to make hospitals safer."
          },
          "icon": "hero-149.png"
        },
        {
          "id": 150,
          "name": {
            "zh-Hans": "引路奔向自由的哈丽特·塔布曼",
            "zh-Hant": "引路奔向自由的哈麗特·塔布曼",
            "en": "Harriet Tubman, Conductor to Freedom"
          },
          "intro": {
            "zh-Hans": "她逃离奴役后一次次折返，带领他人北上奔向自由。",
            "zh-Hant": "她逃離奴役後一次次折返，帶領他人北上奔向自由。",
            "en": "She escaped slavery and went back again and again to lead others north to freedom."
          },
          "icon": "hero-150.png"
        },
        {
          "id": 151,
          "name": {
            "zh-Hans": "踏遍山河的徐霞客",
            "zh-Hant": "踏遍山河的徐霞客",
            "en": "Xu Xiake, Walker of Mountains"
          },
          "intro": {
            "zh-Hans": "明代旅行家徒步三十年，记录山川、洞穴与河流。",
            "zh-Hant": "明代旅行家徒步三十年，記錄山川、洞穴與河流。",
            "en": "A Ming traveller who spent thirty years on foot recording mountains, caves and rivers."
          },
          "icon": "hero-151.png"
        }
        ]
        """#
}
